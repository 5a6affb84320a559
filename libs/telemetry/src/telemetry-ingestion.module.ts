import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '@solar/core';
import { SunSourcesModule } from '@solar/domain';
import { TelemetryIngestion } from './ingestion/telemetry-ingestion.service';
import { TelemetryWindows } from './ingestion/telemetry-windows';
import { TelemetryIntake } from './ingestion/telemetry-intake';
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
    TelemetryIntake,
  ],
  exports: [TelemetryPartitions, TelemetryWriter, TelemetryIngestion, TelemetryIntake],
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

/** Opens the writer's connections and prepares its INSERT before the app reports ready. */
@Injectable()
class TelemetryWriterWarmUp implements OnApplicationBootstrap {
  constructor(private readonly writer: TelemetryWriter) {}

  onApplicationBootstrap(): Promise<void> {
    return this.writer.warmUp();
  }
}

/**
 * For the apps that take device messages (api, ingestor): their first messages find every pool
 * connection open and the INSERT prepared. The scheduler's imports and one-off commands skip it.
 */
@Module({ imports: [TelemetryIngestionModule], providers: [TelemetryWriterWarmUp] })
export class TelemetryWarmUpModule {}
