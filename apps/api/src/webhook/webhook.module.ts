import { Module } from '@nestjs/common';
import { TelemetryIngestionModule } from '@solar/telemetry';
import { WebhookController } from './webhook.controller';

@Module({ imports: [TelemetryIngestionModule], controllers: [WebhookController] })
export class WebhookModule {}
