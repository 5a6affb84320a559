import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, SunSourcesModule } from '@solar/domain';
import { TelemetryIngestion } from './ingestion/telemetry-ingestion.service';
import { TelemetryWindows } from './ingestion/telemetry-windows';
import { WebhookIngestion } from './ingestion/webhook-ingestion.service';
import { StoredNeighbours } from './storage/stored-neighbours';
import { TelemetryPartitions } from './storage/telemetry-partitions';
import { TelemetryWriter } from './storage/telemetry-writer';

/** Storing telemetry: normalization, windows, batched writes. Used by the api and the ingestor. */
@Module({
  imports: [SunSourcesModule],
  providers: [
    TelemetryPartitions,
    TelemetryWriter,
    TelemetryWindows,
    StoredNeighbours,
    TelemetryIngestion,
    WebhookIngestion,
  ],
  exports: [TelemetryPartitions, TelemetryWriter, TelemetryIngestion, WebhookIngestion],
})
export class TelemetryIngestionModule implements OnApplicationBootstrap {
  constructor(
    private readonly partitions: TelemetryPartitions,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.partitions.ensureAhead(this.clock.now());
  }
}
