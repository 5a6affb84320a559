import { Module } from '@nestjs/common';
import { TelemetryExportModule } from '@solar/telemetry';
import { ExportController } from './export.controller';

/** CSV and Excel export. */
@Module({ imports: [TelemetryExportModule], controllers: [ExportController] })
export class ExportModule {}
