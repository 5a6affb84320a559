/** The energy a source produced on one UTC day, as its telemetry measures it. */
export interface MeasuredDayProduction {
  /** UTC midnight starting the day. */
  day: Date;
  energyKwh: number;
  /**
   * `counter`: from the increments of `dailyEnergyProduced`; `power`: from `solarPower` over time,
   * on a day without that counter.
   */
  method: 'counter' | 'power';
}

/** Reads a source's measured production per day; the source's ownership is already checked. */
export interface MeasuredProduction {
  /** Every day with a measured production, oldest first. */
  byDay(sunSourceId: string): Promise<MeasuredDayProduction[]>;
}

/**
 * Injection token of the `MeasuredProduction` the ROI calculation uses: the daily summary's
 * energy, which the telemetry lib computes (`MeasuredProductionModule` of @solar/telemetry).
 */
export const MEASURED_PRODUCTION = Symbol('MEASURED_PRODUCTION');
