import { Global, Module } from '@nestjs/common';
import { DAILY_FORECAST_PROVIDER } from '@solar/domain';
import { PredictionStorageModule } from './prediction-storage.module';
import { LatestDailyForecastReader } from './storage/latest-daily-forecast.reader';

/**
 * Binds the ROI calculation's `DAILY_FORECAST_PROVIDER` to the latest stored forecast. Global,
 * because `RoiModule` (in @solar/domain) cannot import this lib, which depends on it: an app
 * that serves ROI imports this module once.
 */
@Global()
@Module({
  imports: [PredictionStorageModule],
  providers: [{ provide: DAILY_FORECAST_PROVIDER, useClass: LatestDailyForecastReader }],
  exports: [DAILY_FORECAST_PROVIDER],
})
export class ForecastReadersModule {}
