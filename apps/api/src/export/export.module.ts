import { Module } from '@nestjs/common';

/** CSV and Excel export (SPEC.md §4.10). */
@Module({})
export class ExportModule {}
