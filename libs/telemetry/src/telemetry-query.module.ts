import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { TelemetryDownsampler } from './maintenance/telemetry-downsampler';
import { TelemetryQueries } from './query/telemetry-queries.service';
import { TelemetryQueryRepository } from './query/telemetry-query.repository';

/** Reading and compacting stored telemetry. */
@Module({
  imports: [SunSourcesModule],
  providers: [TelemetryQueryRepository, TelemetryQueries, TelemetryDownsampler],
  exports: [TelemetryQueries, TelemetryDownsampler],
})
export class TelemetryQueryModule {}
