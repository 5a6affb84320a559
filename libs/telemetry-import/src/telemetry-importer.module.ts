import { Module } from '@nestjs/common';
import { TelemetryIngestionModule } from '@solar/telemetry';
import { TelemetryImporter } from './telemetry-importer';

/** Reading a CSV into telemetry, on the ingestion path: the command line uses it alone. */
@Module({
  imports: [TelemetryIngestionModule],
  providers: [TelemetryImporter],
  exports: [TelemetryImporter],
})
export class TelemetryImporterModule {}
