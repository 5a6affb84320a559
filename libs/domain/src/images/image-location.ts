import { BadRequestError } from '@solar/core';

/** The names ImageStore gives stored images: a random UUID and the extension of the format. */
export const STORED_IMAGE_NAME = /^[0-9a-f-]{36}\.(jpg|png|gif|webp)$/;

/** User ids are UUIDs; anything else must never become part of a path on disk. */
export const USER_ID = /^[0-9a-f-]{36}$/;

/** Where a stored image sits below the upload folder (and below `UPLOAD_BASE_URL`). */
export const STORED_IMAGE_PATH = /^\/users\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.(jpg|png|gif|webp)$/;

// Traversal and separator smuggling: encoded slashes or backslashes, dot segments, NUL.
const ENCODED_SEPARATOR = /%2f|%5c/i;
const UNSAFE_DECODED = /\.\.|\\|\0/;

/** The path of `UPLOAD_BASE_URL`, without a trailing slash ('' when the uploads sit at the root). */
export function uploadBasePath(uploadBaseUrl: string): string {
  return new URL(uploadBaseUrl).pathname.replace(/\/+$/, '');
}

export function imageUrl(uploadBaseUrl: string, userId: string, fileName: string): string {
  return `${uploadBaseUrl}/users/${userId}/${fileName}`;
}

/**
 * The file name of the caller's image that `url` points at, or `undefined` when it points at
 * anything else (another user's image, a path outside the uploads, a traversal attempt): the
 * caller cannot tell those apart from an image that does not exist.
 * Throws if `url` is not an absolute http(s) URL at all.
 */
export function ownImageFileName(url: string, basePath: string, userId: string): string | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new BadRequestError('url must be an absolute http or https URL');
  }
  // The URL parser has already resolved plain and %2e dot segments; the raw text is checked too,
  // so that `users/{other}/../{me}` is refused rather than quietly resolved.
  if (UNSAFE_DECODED.test(url) || /%2e/i.test(url)) return undefined;
  const rawPath = parsed.pathname;
  if (ENCODED_SEPARATOR.test(rawPath)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  if (UNSAFE_DECODED.test(path)) return undefined;
  const folder = `${basePath}/users/${userId}/`;
  if (!path.startsWith(folder)) return undefined;
  const fileName = path.slice(folder.length);
  return STORED_IMAGE_NAME.test(fileName) ? fileName : undefined;
}
