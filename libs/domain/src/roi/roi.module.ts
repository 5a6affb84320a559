import { Module } from '@nestjs/common';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { DailyEnergyReadingsRepository } from './daily-energy-readings.repository';
import { DAILY_FORECAST_PROVIDER, NoDailyForecast } from './latest-daily-forecast';
import { RoiService } from './roi.service';

@Module({
  imports: [SunSourcesModule],
  providers: [
    DailyEnergyReadingsRepository,
    // No stored forecasts yet: the forecasting capability binds its reader of the latest one here.
    { provide: DAILY_FORECAST_PROVIDER, useClass: NoDailyForecast },
    RoiService,
  ],
  exports: [RoiService],
})
export class RoiModule {}
