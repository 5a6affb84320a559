export { IMAGE_FORMATS, imageFormatOf, MAX_IMAGE_BYTES } from './image-format';
export type { ImageFormat } from './image-format';
export { STORED_IMAGE_PATH, uploadBasePath } from './image-location';
export { ImageStore } from './image-store';
export type { ImageUpload } from './image-store';
export { ImageNotFoundError, ImageTooLargeError, InvalidImageError } from './image.errors';
export { ImagesModule } from './images.module';
