import { Module } from '@nestjs/common';
import { ImagesModule } from '@solar/domain';
import { UploadController } from './upload.controller';

/** Image upload; the files are served by `serveUploads`. */
@Module({ imports: [ImagesModule], controllers: [UploadController] })
export class UploadModule {}
