import { Injectable } from '@nestjs/common';
import { DailyForecastPoint, LatestDailyForecast } from '@solar/domain';
import { PredictionRepository } from './prediction.repository';

/** The ROI calculation's view of the latest stored forecast: its days' solar production. */
@Injectable()
export class LatestDailyForecastReader implements LatestDailyForecast {
  constructor(private readonly predictions: PredictionRepository) {}

  async dailyPoints(sunSourceId: string): Promise<DailyForecastPoint[]> {
    return (await this.predictions.latestDaily(sunSourceId)).map((day) => ({
      date: day.date,
      solarProductionKwh: day.solarProductionKwh,
    }));
  }
}
