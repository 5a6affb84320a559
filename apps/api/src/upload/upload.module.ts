import { Module } from '@nestjs/common';

/** Image upload (SPEC.md §4.11). */
@Module({})
export class UploadModule {}
