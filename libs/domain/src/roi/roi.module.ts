import { Module } from '@nestjs/common';
import { KwhPricesModule } from '../prices/kwh-prices.module';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { DailyEnergyReadingsRepository } from './daily-energy-readings.repository';
import { RoiService } from './roi.service';

/**
 * ROI per source. Its forecast days come from `DAILY_FORECAST_PROVIDER`, which the forecasting
 * capability provides globally (`ForecastReadersModule` of @solar/predictions: the latest stored
 * forecast's daily points). It is not bound here because that lib depends on this one; an app
 * serving ROI without it fails at boot rather than silently showing no forecast days.
 */
@Module({
  imports: [SunSourcesModule, KwhPricesModule],
  providers: [DailyEnergyReadingsRepository, RoiService],
  exports: [RoiService],
})
export class RoiModule {}
