import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { imageFormatOf, MAX_IMAGE_BYTES } from './image-format';
import { imageUrl, ownImageFileName, uploadBasePath, USER_ID } from './image-location';
import { ImageNotFoundError, ImageTooLargeError, InvalidImageError } from './image.errors';

export interface ImageUpload {
  /** As the client declared it; only checked, never trusted for the file name. */
  mimeType: string;
  bytes: Buffer;
}

const ALLOWED_TYPES = 'Only JPEG, PNG, GIF and WebP images are allowed';

/**
 * Users' images on disk, `UPLOAD_DIR/users/{userId}/{uuid}.{ext}`, served read-only at
 * `UPLOAD_BASE_URL`. A user only ever writes to and deletes from their own folder.
 */
@Injectable()
export class ImageStore {
  private readonly basePath: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.basePath = uploadBasePath(config.uploadBaseUrl);
  }

  /** Stores the image under a random name and returns its public URL. */
  async save(userId: string, image: ImageUpload): Promise<string> {
    const format = imageFormatOf(image.mimeType);
    if (!format) throw new InvalidImageError(ALLOWED_TYPES);
    if (image.bytes.length === 0) throw new InvalidImageError('The image file is empty');
    if (image.bytes.length > MAX_IMAGE_BYTES) throw new ImageTooLargeError();
    if (!format.matches(image.bytes)) {
      throw new InvalidImageError(`The file content does not match its type ${format.mimeType}`);
    }

    const folder = this.folderOf(userId);
    const fileName = `${randomUUID()}.${format.extension}`;
    // A dot name is never served (dotfiles are denied), so a half-written file is never seen.
    const temporary = join(folder, `.${fileName}.part`);
    await mkdir(folder, { recursive: true });
    try {
      await writeFile(temporary, image.bytes, { mode: 0o644, flag: 'wx' });
      await chmod(temporary, 0o644); // whatever the umask: a proxy in front may serve the folder
      await rename(temporary, join(folder, fileName));
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return imageUrl(this.config.uploadBaseUrl, userId, fileName);
  }

  /** Deletes one of the caller's images by its URL; anything else is "not found". */
  async delete(userId: string, url: string): Promise<void> {
    const fileName = ownImageFileName(url, this.basePath, userId);
    if (!fileName) throw new ImageNotFoundError();
    const folder = this.folderOf(userId);
    const file = resolve(folder, fileName);
    if (!file.startsWith(folder + sep)) throw new ImageNotFoundError();
    try {
      await unlink(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new ImageNotFoundError();
      throw error;
    }
  }

  /** Removes every image of a user (their account is being deleted). */
  async deleteAllOf(userId: string): Promise<void> {
    await rm(this.folderOf(userId), { recursive: true, force: true });
  }

  private folderOf(userId: string): string {
    // The id comes from the session, but a malformed one would otherwise name a path on disk.
    if (!USER_ID.test(userId)) throw new Error(`not a user id: ${JSON.stringify(userId)}`);
    return resolve(this.config.uploadDir, 'users', userId);
  }
}
