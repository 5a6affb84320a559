import { MeasuredDayProduction } from './measured-production';
import { DAY_MS } from './roi-arithmetic';

/** What one UTC day of a source's telemetry says about its cumulative `totalEnergyProduced` (kWh). */
export interface TotalEnergyReadings {
  /** UTC midnight starting the day. */
  day: Date;
  /** Smallest and largest `totalEnergyProduced` of the day. */
  minTotalEnergyKwh: number;
  maxTotalEnergyKwh: number;
}

/** The energy a source produced on one UTC day. */
export interface DailyEnergy {
  day: Date;
  energyKwh: number;
}

/**
 * Energy per UTC day. A day whose `dailyEnergyProduced` counter was
 * reported takes the daily summary's energy (`measured`, method `counter`: the counter's
 * increments). A day without it falls back on the cumulative `totalEnergyProduced`: its rise since
 * the previous calendar day's last (largest) reading, which also counts what was produced between
 * that reading and midnight; without a reading the day before, or when the counter went backwards
 * since (a reset or a replaced device), the rise within the day (largest − smallest). Energy is
 * never attributed across a gap of days. A day with neither counter takes the daily summary's
 * energy from solar power over time (method `power`). Other days are not in the answer. Input in
 * any order; output ascending by day.
 */
export function dailyEnergy(
  measured: readonly MeasuredDayProduction[],
  totals: readonly TotalEnergyReadings[],
): DailyEnergy[] {
  const measuredByDay = new Map(measured.map((entry) => [entry.day.getTime(), entry]));
  const totalsByDay = new Map(totals.map((entry) => [entry.day.getTime(), entry]));
  const days = [...new Set([...measuredByDay.keys(), ...totalsByDay.keys()])].sort((a, b) => a - b);
  const result: DailyEnergy[] = [];
  for (const day of days) {
    const energyKwh = energyOfDay(
      measuredByDay.get(day),
      totalsByDay.get(day),
      totalsByDay.get(day - DAY_MS)?.maxTotalEnergyKwh ?? null,
    );
    if (energyKwh !== null) result.push({ day: new Date(day), energyKwh });
  }
  return result;
}

function energyOfDay(
  measured: MeasuredDayProduction | undefined,
  totals: TotalEnergyReadings | undefined,
  previousTotalKwh: number | null,
): number | null {
  if (measured?.method === 'counter') return measured.energyKwh;
  if (totals) {
    const { minTotalEnergyKwh: min, maxTotalEnergyKwh: max } = totals;
    if (previousTotalKwh !== null && previousTotalKwh <= max) return max - previousTotalKwh;
    return max - min;
  }
  return measured?.energyKwh ?? null;
}
