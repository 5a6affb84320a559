import { Module } from '@nestjs/common';
import { TelemetryQueryModule } from '@solar/telemetry';
import { TelemetryDataController } from './telemetry-data.controller';

@Module({ imports: [TelemetryQueryModule], controllers: [TelemetryDataController] })
export class TelemetryDataModule {}
