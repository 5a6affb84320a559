import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@solar/core';
import { NotFoundError } from '@solar/core';
import { KwhPriceRepository } from '../prices/kwh-price.repository';
import { SunSourceRepository } from '../sun-sources/sun-source.repository';
import { SUN_SOURCE_NOT_FOUND } from '../sun-sources/source-access-cache';
import { dailyEnergy } from './daily-energy';
import { DailyEnergyReadingsRepository } from './daily-energy-readings.repository';
import { DAILY_FORECAST_PROVIDER, LatestDailyForecast } from './latest-daily-forecast';
import { calculateRoi } from './roi-calculator';
import { RoiSummary } from './roi-summary';

/** Return on investment of a source: gathers the inputs of `calculateRoi`. */
@Injectable()
export class RoiService {
  constructor(
    private readonly sources: SunSourceRepository,
    private readonly prices: KwhPriceRepository,
    private readonly readings: DailyEnergyReadingsRepository,
    @Inject(DAILY_FORECAST_PROVIDER) private readonly forecast: LatestDailyForecast,
    private readonly clock: Clock,
  ) {}

  async calculate(ownerId: string, sunSourceId: string): Promise<RoiSummary> {
    const source = await this.sources.findOwned(ownerId, sunSourceId);
    if (!source) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    const [readings, prices, forecast] = await Promise.all([
      this.readings.ofOwnedSource(ownerId, sunSourceId),
      this.prices.listForOwnedSource(ownerId, sunSourceId),
      this.forecast.dailyPoints(sunSourceId),
    ]);
    return calculateRoi({
      currency: source.currency,
      systemCost: source.systemCost,
      maintenanceCostPerYear: source.maintenanceCostPerYear,
      days: dailyEnergy(readings),
      prices,
      forecast,
      now: this.clock.now(),
    });
  }
}
