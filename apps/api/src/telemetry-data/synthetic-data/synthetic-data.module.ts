import { Module } from '@nestjs/common';
import { SyntheticTelemetryModule } from '@solar/synthetic';
import { SyntheticDataController } from './synthetic-data.controller';

/** Admin+ synthetic telemetry: 30 days at once, or a live generator. */
@Module({ imports: [SyntheticTelemetryModule], controllers: [SyntheticDataController] })
export class SyntheticDataModule {}
