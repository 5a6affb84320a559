import { DailyEnergy } from './daily-energy';
import { DailyForecastPoint } from './latest-daily-forecast';
import { RoiDay, RoiSummary } from './roi-summary';
import { DAY_MS, DAYS_PER_MONTH, DAYS_PER_YEAR, roundTo, startOfUtcDay } from './roi-arithmetic';

export interface RoiPrice {
  pricePerKwh: number;
  effectiveFrom: Date;
}

/** Everything the ROI of one source depends on, gathered by the service. */
export interface RoiInput {
  currency: string;
  systemCost: number | null;
  maintenanceCostPerYear: number | null;
  /** Measured energy per UTC day (`dailyEnergy`'s answer). */
  days: readonly DailyEnergy[];
  /** The price history; among equal `effectiveFrom`, in the order the prices were entered. */
  prices: readonly RoiPrice[];
  /** The daily points of the latest forecast. */
  forecast: readonly DailyForecastPoint[];
  now: Date;
}

/**
 * The ROI summary; every formula is written out in docs/roi.md. Sums run on unrounded values; only the answer is rounded (money to 2 decimals,
 * energy to 3, prices to 6, percentage and years to 2).
 */
export function calculateRoi(input: RoiInput): RoiSummary {
  const priceOn = dailyPricing(input.prices);
  const measured = [...input.days].sort((a, b) => a.day.getTime() - b.day.getTime());
  const systemCost = input.systemCost ?? 0;
  const maintenancePerYear = input.maintenanceCostPerYear ?? 0;

  const dailyBreakdown: RoiDay[] = [];
  let cumulativeSavings = 0;
  const addDay = ({ day, energyKwh }: DailyEnergy, isPrediction: boolean): number => {
    const pricePerKwh = priceOn(day);
    const savings = energyKwh * pricePerKwh;
    cumulativeSavings += savings;
    dailyBreakdown.push({
      date: day.toISOString(),
      energyProducedKwh: roundTo(energyKwh, 3),
      pricePerKwh: roundTo(pricePerKwh, 6),
      savings: roundTo(savings, 2),
      cumulativeSavings: roundTo(cumulativeSavings, 2),
      isPrediction,
    });
    return savings;
  };

  let totalEnergyKwh = 0;
  let totalSavings = 0;
  for (const day of measured) {
    totalEnergyKwh += day.energyKwh;
    totalSavings += addDay(day, false);
  }
  const first = measured.at(0)?.day ?? null;
  const last = measured.at(-1)?.day ?? null;
  const today = startOfUtcDay(input.now);
  for (const day of forecastDays(input.forecast, Math.max(today, last?.getTime() ?? today))) {
    addDay(day, true);
  }

  const daysCovered = first && last ? (last.getTime() - first.getTime()) / DAY_MS + 1 : 0;
  const yearsCovered = daysCovered / DAYS_PER_YEAR;
  const monthlyAvgSavings = daysCovered > 0 ? totalSavings / (daysCovered / DAYS_PER_MONTH) : 0;
  const netAnnualSavings = monthlyAvgSavings * 12 - maintenancePerYear;
  const hasInvestmentData = systemCost > 0;
  const roiPercentage = hasInvestmentData
    ? ((totalSavings - maintenancePerYear * yearsCovered - systemCost) / systemCost) * 100
    : 0;
  const paybackPeriodYears = hasInvestmentData && netAnnualSavings > 0 ? systemCost / netAnnualSavings : 0;

  return {
    totalEnergyProducedKwh: roundTo(totalEnergyKwh, 3),
    totalSavings: roundTo(totalSavings, 2),
    currency: input.currency,
    firstDataDate: first?.toISOString() ?? null,
    lastDataDate: last?.toISOString() ?? null,
    dailyBreakdown,
    systemCost: roundTo(systemCost, 2),
    roiPercentage: roundTo(roiPercentage, 2),
    paybackPeriodYears: roundTo(paybackPeriodYears, 2),
    monthlyAvgSavings: roundTo(monthlyAvgSavings, 2),
    hasInvestmentData,
  };
}

/**
 * The price of a UTC day: the latest one whose `effectiveFrom` falls before the day ends, so a
 * price that takes effect during a day applies to all of it (the energy of a day is not split
 * by hour). Among equal `effectiveFrom` the one entered last wins. None yet: 0.
 *
 * Found by binary search over the prices sorted once (stably, so entry order survives among
 * equal dates): O(log prices) a day, since a public ROI may be asked for anonymously.
 */
export function dailyPricing(prices: readonly RoiPrice[]): (day: Date) => number {
  const ordered = [...prices].sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
  const starts = ordered.map((price) => price.effectiveFrom.getTime());
  return (day) => {
    const end = day.getTime() + DAY_MS;
    // The number of prices effective before `end`: the first index whose start is not.
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (starts[middle] < end) low = middle + 1;
      else high = middle;
    }
    return low > 0 ? ordered[low - 1].pricePerKwh : 0;
  };
}

/**
 * The forecast days strictly after `afterDay` (a UTC midnight), ascending. Points with a date
 * that is not `YYYY-MM-DD` or a production that is not a number are ignored; a negative
 * production counts as 0; of two points for one day the first is kept.
 */
function forecastDays(points: readonly DailyForecastPoint[], afterDay: number): DailyEnergy[] {
  const days = new Map<number, number>();
  for (const point of points) {
    const day = parseUtcDay(point.date);
    if (day === null || day <= afterDay || days.has(day) || !Number.isFinite(point.solarProductionKwh)) {
      continue;
    }
    days.set(day, Math.max(point.solarProductionKwh, 0));
  }
  return [...days].sort(([a], [b]) => a - b).map(([day, energyKwh]) => ({ day: new Date(day), energyKwh }));
}

function parseUtcDay(date: unknown): number | null {
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const day = Date.parse(`${date}T00:00:00.000Z`);
  return Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== date ? null : day;
}
