import { combinedMethod, CombinedEnergyMethod } from '../energy/energy-increments';
import { DailyRow } from './telemetry-query.repository';

/**
 * DailySummaryDto: one day's (or week's) telemetry summary; `date` is the UTC day, or the Monday
 * of an ISO week. Energy is counted from the device's counters, or from power over time on days
 * without a counter reading (`energy-increments.ts`); each direction says which (a week whose days
 * differ says `mixed`).
 */
export interface DailySummary {
  date: string;
  solarPowerAvg: number | null;
  solarPowerMax: number | null;
  loadPowerAvg: number | null;
  loadPowerMax: number | null;
  socAvg: number | null;
  socMin: number | null;
  socMax: number | null;
  voltageAvg: number | null;
  gridVoltageAvg: number | null;
  gridFreqAvg: number | null;
  energyProduced: number | null;
  energyConsumed: number | null;
  sampleCount: number;
  energyProducedMethod: CombinedEnergyMethod | null;
  energyConsumedMethod: CombinedEnergyMethod | null;
}

/** Monday (UTC) of the ISO week holding `day`, as `YYYY-MM-DD`. */
export function isoWeekStart(day: Date): string {
  const monday = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
  return monday.toISOString().slice(0, 10);
}

/**
 * ISO-week summaries from daily rows: averages weighted by the samples behind them
 * (exactly: by each field's non-null count, so a week's average equals the average of its raw
 * values), energy summed over the days (with the methods the days used), minima and maxima kept.
 */
export function weeklySummaries(days: readonly DailyRow[]): DailySummary[] {
  const weeks = new Map<string, DailyRow[]>();
  for (const day of days) {
    const week = isoWeekStart(day.day);
    weeks.set(week, [...(weeks.get(week) ?? []), day]);
  }
  return [...weeks.entries()].map(([date, rows]) => ({
    date,
    solarPowerAvg: weighted(
      rows,
      (row) => row.solarPowerAvg,
      (row) => row.solarPowerCount,
    ),
    solarPowerMax: extreme(rows, (row) => row.solarPowerMax, Math.max),
    loadPowerAvg: weighted(
      rows,
      (row) => row.loadPowerAvg,
      (row) => row.loadPowerCount,
    ),
    loadPowerMax: extreme(rows, (row) => row.loadPowerMax, Math.max),
    socAvg: weighted(
      rows,
      (row) => row.socAvg,
      (row) => row.socCount,
    ),
    socMin: extreme(rows, (row) => row.socMin, Math.min),
    socMax: extreme(rows, (row) => row.socMax, Math.max),
    voltageAvg: weighted(
      rows,
      (row) => row.voltageAvg,
      (row) => row.voltageCount,
    ),
    gridVoltageAvg: weighted(
      rows,
      (row) => row.gridVoltageAvg,
      (row) => row.gridVoltageCount,
    ),
    gridFreqAvg: weighted(
      rows,
      (row) => row.gridFreqAvg,
      (row) => row.gridFreqCount,
    ),
    energyProduced: sum(rows, (row) => row.energyProduced),
    energyConsumed: sum(rows, (row) => row.energyConsumed),
    sampleCount: rows.reduce((total, row) => total + row.sampleCount, 0),
    energyProducedMethod: combinedMethod(rows.map((row) => row.energyProducedMethod)),
    energyConsumedMethod: combinedMethod(rows.map((row) => row.energyConsumedMethod)),
  }));
}

function weighted(
  rows: readonly DailyRow[],
  value: (row: DailyRow) => number | null,
  weight: (row: DailyRow) => number,
): number | null {
  let total = 0;
  let weights = 0;
  for (const row of rows) {
    const average = value(row);
    if (average === null || weight(row) === 0) continue;
    total += average * weight(row);
    weights += weight(row);
  }
  return weights === 0 ? null : total / weights;
}

function extreme(
  rows: readonly DailyRow[],
  value: (row: DailyRow) => number | null,
  pick: (...values: number[]) => number,
): number | null {
  const values = rows.map(value).filter((entry): entry is number => entry !== null);
  return values.length === 0 ? null : pick(...values);
}

function sum(rows: readonly DailyRow[], value: (row: DailyRow) => number | null): number | null {
  const values = rows.map(value).filter((entry): entry is number => entry !== null);
  return values.length === 0 ? null : values.reduce((total, entry) => total + entry, 0);
}
