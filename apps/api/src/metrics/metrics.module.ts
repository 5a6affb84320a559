import { Module } from '@nestjs/common';
import { TelemetryQueryModule } from '@solar/telemetry';
import { MetricsController } from './metrics.controller';

@Module({ imports: [TelemetryQueryModule], controllers: [MetricsController] })
export class MetricsModule {}
