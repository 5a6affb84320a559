import { Module } from '@nestjs/common';
import { ImportSpool } from './import-spool';
import { TelemetryImportWorker } from './telemetry-import-worker';
import { TelemetryImporterModule } from './telemetry-importer.module';

/** The scheduler's side of imports: the worker that runs the large ones. */
@Module({
  imports: [TelemetryImporterModule],
  providers: [ImportSpool, TelemetryImportWorker],
})
export class TelemetryImportWorkerModule {}
