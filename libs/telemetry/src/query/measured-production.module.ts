import { Global, Injectable, Module } from '@nestjs/common';
import { MEASURED_PRODUCTION, MeasuredDayProduction, MeasuredProduction } from '@solar/domain';
import { TelemetryQueryRepository } from './telemetry-query.repository';

/** The daily summary's produced energy, for the ROI calculation. */
@Injectable()
export class MeasuredProductionReader implements MeasuredProduction {
  constructor(private readonly telemetry: TelemetryQueryRepository) {}

  byDay(sunSourceId: string): Promise<MeasuredDayProduction[]> {
    return this.telemetry.productionByDay(sunSourceId);
  }
}

/**
 * Binds the ROI calculation's `MEASURED_PRODUCTION` to the energy the daily summary counts. Global,
 * because `RoiModule` (in @solar/domain) cannot import this lib, which depends on it: an app that
 * serves ROI imports this module once.
 */
@Global()
@Module({
  providers: [TelemetryQueryRepository, { provide: MEASURED_PRODUCTION, useClass: MeasuredProductionReader }],
  exports: [MEASURED_PRODUCTION],
})
export class MeasuredProductionModule {}
