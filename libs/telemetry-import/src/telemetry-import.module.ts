import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { ImportSpool } from './import-spool';
import { TelemetryImportQueue } from './telemetry-import-queue';
import { TelemetryImporterModule } from './telemetry-importer.module';
import { TelemetryImports } from './telemetry-imports.service';

/** The api's side of imports: the upload route's service and the queue it hands large files to. */
@Module({
  imports: [TelemetryImporterModule, SunSourcesModule],
  providers: [ImportSpool, TelemetryImportQueue, TelemetryImports],
  exports: [TelemetryImports],
})
export class TelemetryImportModule {}
