import { Module } from '@nestjs/common';
import { TelemetryIngestionModule, TelemetryWarmUpModule } from '@solar/telemetry';
import { WebhookController } from './webhook.controller';

@Module({ imports: [TelemetryIngestionModule, TelemetryWarmUpModule], controllers: [WebhookController] })
export class WebhookModule {}
