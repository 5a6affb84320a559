import { Module } from '@nestjs/common';
import { KwhPricesModule } from '../prices/kwh-prices.module';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { RoiService } from './roi.service';
import { TotalEnergyReadingsRepository } from './total-energy-readings.repository';

/**
 * ROI per source. Its forecast days come from `DAILY_FORECAST_PROVIDER`, which the forecasting
 * capability provides globally (`ForecastReadersModule` of @solar/predictions: the latest stored
 * forecast's daily points), and its measured days from `MEASURED_PRODUCTION`, which the telemetry
 * lib provides globally (`MeasuredProductionModule` of @solar/telemetry: the daily summary's
 * energy). They are not bound here because those libs depend on this one; an app serving ROI
 * without them fails at boot rather than silently showing no days.
 */
@Module({
  imports: [SunSourcesModule, KwhPricesModule],
  providers: [TotalEnergyReadingsRepository, RoiService],
  exports: [RoiService],
})
export class RoiModule {}
