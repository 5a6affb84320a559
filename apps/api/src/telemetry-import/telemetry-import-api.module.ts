import { Module } from '@nestjs/common';
import { TelemetryImportModule } from '@solar/telemetry-import';
import { TelemetryImportController } from './telemetry-import.controller';

@Module({ imports: [TelemetryImportModule], controllers: [TelemetryImportController] })
export class TelemetryImportApiModule {}
