import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { TelemetryIngestionModule } from '@solar/telemetry';
import { LatestReadingRepository } from './latest-reading.repository';
import { SyntheticRuns } from './synthetic-runs';
import { SyntheticTelemetryService } from './synthetic-telemetry.service';

/** Synthetic telemetry: a 30-day history at once, or live generators on the normal ingestion path. */
@Module({
  imports: [TelemetryIngestionModule, SunSourcesModule],
  providers: [SyntheticRuns, LatestReadingRepository, SyntheticTelemetryService],
  exports: [SyntheticTelemetryService],
})
export class SyntheticTelemetryModule {}
