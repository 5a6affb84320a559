import { Module } from '@nestjs/common';
import { ImageStore } from './image-store';

@Module({ providers: [ImageStore], exports: [ImageStore] })
export class ImagesModule {}
