/** The part of multer's file object (memory storage) that the upload reads; `@types/multer` is not installed. */
export interface UploadedImageFile {
  buffer: Buffer;
  mimetype: string;
  size: number;
  originalname: string;
}
