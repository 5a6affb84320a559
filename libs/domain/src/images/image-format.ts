/** The largest image accepted, in bytes (5 MiB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export interface ImageFormat {
  mimeType: string;
  /** Extension of the stored file; the server's static files derive the Content-Type from it. */
  extension: string;
  /** Whether the leading bytes are this format's signature. */
  matches(bytes: Buffer): boolean;
}

const startsWith = (bytes: Buffer, signature: number[], offset = 0) =>
  bytes.length >= offset + signature.length &&
  signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string) => [...Buffer.from(text, 'ascii')];

export const IMAGE_FORMATS: readonly ImageFormat[] = [
  { mimeType: 'image/jpeg', extension: 'jpg', matches: (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]) },
  {
    mimeType: 'image/png',
    extension: 'png',
    matches: (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47]),
  },
  { mimeType: 'image/gif', extension: 'gif', matches: (bytes) => startsWith(bytes, ascii('GIF8')) },
  {
    mimeType: 'image/webp',
    extension: 'webp',
    // RIFF alone would also admit WAV and AVI files: the form type at offset 8 tells them apart.
    matches: (bytes) => startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8),
  },
];

/** The format a declared MIME type names, or `undefined` if it is not an image we accept. */
export function imageFormatOf(mimeType: string): ImageFormat | undefined {
  const essence = mimeType.split(';')[0].trim().toLowerCase();
  return IMAGE_FORMATS.find((format) => format.mimeType === essence);
}
