import { DAY_MS } from './roi-arithmetic';

/** What one UTC day of a source's telemetry says about its production (energy counters, kWh). */
export interface DailyEnergyReadings {
  /** UTC midnight starting the day. */
  day: Date;
  /** Largest `dailyEnergyProduced` of the day, null when no point of the day carried it. */
  maxDailyEnergyKwh: number | null;
  /** Smallest and largest `totalEnergyProduced` of the day, null when no point carried it. */
  minTotalEnergyKwh: number | null;
  maxTotalEnergyKwh: number | null;
}

/** The energy a source produced on one UTC day. */
export interface DailyEnergy {
  day: Date;
  energyKwh: number;
}

/**
 * Energy per UTC day (docs/roi.md). The day's largest `dailyEnergyProduced`
 * wins. A day without that counter falls back on the cumulative
 * `totalEnergyProduced`: its rise since the previous calendar day's last (largest) reading, which
 * also counts what was produced between that reading and midnight; without a reading the day
 * before, or when the counter went backwards since (a reset or a replaced device), the rise
 * within the day (largest − smallest). Energy is never attributed across a gap of days. Days
 * with neither counter are not in the answer. Input in any order; output ascending by day.
 */
export function dailyEnergy(readings: readonly DailyEnergyReadings[]): DailyEnergy[] {
  const days = [...readings].sort((a, b) => a.day.getTime() - b.day.getTime());
  const result: DailyEnergy[] = [];
  days.forEach((reading, index) => {
    const previous = index > 0 ? days[index - 1] : undefined;
    const energyKwh = energyOfDay(
      reading,
      previous && reading.day.getTime() - previous.day.getTime() === DAY_MS
        ? previous.maxTotalEnergyKwh
        : null,
    );
    if (energyKwh !== null) result.push({ day: reading.day, energyKwh });
  });
  return result;
}

function energyOfDay(reading: DailyEnergyReadings, previousTotalKwh: number | null): number | null {
  if (reading.maxDailyEnergyKwh !== null) return reading.maxDailyEnergyKwh;
  const { minTotalEnergyKwh: min, maxTotalEnergyKwh: max } = reading;
  if (min === null || max === null) return null;
  if (previousTotalKwh !== null && previousTotalKwh <= max) return max - previousTotalKwh;
  return max - min;
}
