import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@solar/core';
import { NotFoundError } from '@solar/core';
import { KwhPriceRepository } from '../prices/kwh-price.repository';
import { SunSourceRepository } from '../sun-sources/sun-source.repository';
import { SUN_SOURCE_NOT_FOUND } from '../sun-sources/source-access-cache';
import { dailyEnergy } from './daily-energy';
import { DAILY_FORECAST_PROVIDER, LatestDailyForecast } from './latest-daily-forecast';
import { MEASURED_PRODUCTION, MeasuredProduction } from './measured-production';
import { calculateRoi } from './roi-calculator';
import { RoiSummary } from './roi-summary';
import { TotalEnergyReadingsRepository } from './total-energy-readings.repository';

/** Return on investment of a source: gathers the inputs of `calculateRoi`. */
@Injectable()
export class RoiService {
  constructor(
    private readonly sources: SunSourceRepository,
    private readonly prices: KwhPriceRepository,
    private readonly totals: TotalEnergyReadingsRepository,
    @Inject(MEASURED_PRODUCTION) private readonly measured: MeasuredProduction,
    @Inject(DAILY_FORECAST_PROVIDER) private readonly forecast: LatestDailyForecast,
    private readonly clock: Clock,
  ) {}

  async calculate(ownerId: string, sunSourceId: string): Promise<RoiSummary> {
    const source = await this.sources.findOwned(ownerId, sunSourceId);
    if (!source) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    const [measured, totals, prices, forecast] = await Promise.all([
      this.measured.byDay(sunSourceId),
      this.totals.ofOwnedSource(ownerId, sunSourceId),
      this.prices.listForOwnedSource(ownerId, sunSourceId),
      this.forecast.dailyPoints(sunSourceId),
    ]);
    return calculateRoi({
      currency: source.currency,
      systemCost: source.systemCost,
      maintenanceCostPerYear: source.maintenanceCostPerYear,
      days: dailyEnergy(measured, totals),
      prices,
      forecast,
      now: this.clock.now(),
    });
  }
}
