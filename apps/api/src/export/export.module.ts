import { Module } from '@nestjs/common';
import { TelemetryExportModule } from '@solar/telemetry';
import { ExportController } from './export.controller';

/** CSV and Excel export (SPEC.md §4.10). */
@Module({ imports: [TelemetryExportModule], controllers: [ExportController] })
export class ExportModule {}
