import { encodeJson, EncodedJson, withEncodedMember } from '@solar/database';
import { DailyRow, HourlyRow, RangeSummaryRow } from './telemetry-query.repository';

/** The data report of a source over a range. */
export interface TelemetryReport {
  source: { name: string; iconUrl: string | null };
  period: string;
  startDate: string;
  endDate: string;
  generatedAt: string;
  dataPoints: number;
  summary: ReportSummary;
  hourlyData: ReportHour[];
}

export interface ReportSummary {
  avgSolarPower: number | null;
  maxSolarPower: number | null;
  avgStateOfCharge: number | null;
  minStateOfCharge: number | null;
  avgBatteryVoltage: number | null;
  avgLoadPower: number | null;
  maxLoadPower: number | null;
  totalEnergyProduced: number;
  totalEnergyConsumed: number;
  operatingModes: Array<{ mode: string; count: number; percentage: number }>;
}

/** One UTC hour of the report: SunSourceHistoricalDataDto plus load power and the sample count. */
export type ReportHour = HourlyRow;

export interface ReportInput {
  source: { name: string; iconUrl: string | null };
  period: string;
  start: Date;
  end: Date;
  generatedAt: Date;
  totals: RangeSummaryRow;
  days: readonly DailyRow[];
  /** ReportHour[], encoded by PostgreSQL. */
  hours: EncodedJson;
  modes: ReadonlyArray<{ mode: string; count: number }>;
}

/**
 * Energy of a range = the sum of its UTC days' energy (from the counters' increments, or power
 * over time on days without a counter reading); mode percentages are of the data points that
 * reported a mode.
 */
export function buildReport(input: ReportInput): EncodedJson {
  const { totals } = input;
  const withMode = input.modes.reduce((total, mode) => total + mode.count, 0);
  const energy = (pick: (day: DailyRow) => number | null) =>
    input.days.reduce((total, day) => total + (pick(day) ?? 0), 0);
  const report: Omit<TelemetryReport, 'hourlyData'> = {
    source: input.source,
    period: input.period,
    startDate: input.start.toISOString(),
    endDate: input.end.toISOString(),
    generatedAt: input.generatedAt.toISOString(),
    dataPoints: totals.dataPoints,
    summary: {
      avgSolarPower: totals.avgSolarPower,
      maxSolarPower: totals.maxSolarPower,
      avgStateOfCharge: totals.avgStateOfCharge,
      minStateOfCharge: totals.minStateOfCharge,
      avgBatteryVoltage: totals.avgBatteryVoltage,
      avgLoadPower: totals.avgLoadPower,
      maxLoadPower: totals.maxLoadPower,
      totalEnergyProduced: energy((day) => day.energyProduced),
      totalEnergyConsumed: energy((day) => day.energyConsumed),
      operatingModes: input.modes.map((mode) => ({
        mode: mode.mode,
        count: mode.count,
        percentage: Math.round((mode.count / withMode) * 10_000) / 100,
      })),
    },
  };
  return withEncodedMember(encodeJson(report), 'hourlyData', input.hours);
}
