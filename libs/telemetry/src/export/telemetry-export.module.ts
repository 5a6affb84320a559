import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import {
  DEFAULT_EXPORT_ROW_LIMIT,
  EXPORT_ROW_LIMIT,
  TelemetryExportService,
} from './telemetry-export.service';
import { TelemetryExportRepository } from './telemetry-export.repository';
import { ExportUserSlots } from './export-user-slots';

/** CSV and Excel export of stored telemetry. */
@Module({
  imports: [SunSourcesModule],
  providers: [
    TelemetryExportRepository,
    ExportUserSlots,
    TelemetryExportService,
    { provide: EXPORT_ROW_LIMIT, useValue: DEFAULT_EXPORT_ROW_LIMIT },
  ],
  exports: [TelemetryExportService],
})
export class TelemetryExportModule {}
