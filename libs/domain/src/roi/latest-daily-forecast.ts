import { Injectable } from '@nestjs/common';

/** One day of a stored forecast (an element of its `data.daily`). */
export interface DailyForecastPoint {
  /** `YYYY-MM-DD`, a UTC day. */
  date: string;
  solarProductionKwh: number;
}

/** Reads the daily points of a source's latest forecast; the source's ownership is already checked. */
export interface LatestDailyForecast {
  /** The points of the most recently created forecast of the source, or [] when it has none. */
  dailyPoints(sunSourceId: string): Promise<DailyForecastPoint[]>;
}

/** Injection token of the `LatestDailyForecast` the ROI calculation uses. */
export const DAILY_FORECAST_PROVIDER = Symbol('DAILY_FORECAST_PROVIDER');

/**
 * The provider until forecasts are stored: no forecast, so the ROI answer has no prediction
 * days. The api binds `DAILY_FORECAST_PROVIDER` to the latest stored forecast (ForecastReadersModule of `@solar/predictions`).
 */
@Injectable()
export class NoDailyForecast implements LatestDailyForecast {
  async dailyPoints(): Promise<DailyForecastPoint[]> {
    return [];
  }
}
