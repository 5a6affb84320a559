import { CODE_FIELDS, NUMERIC_FIELDS, NumericField, TEXT_FIELDS } from '../telemetry-fields';

/** The numeric fields of SunSourceMetricsDto (SPEC.md §2.3), in its order. */
export const METRICS_NUMERIC_FIELDS = [
  'stateOfCharge',
  'stateOfHealth',
  'batteryVoltage',
  'batteryCurrent',
  'batteryTemperature',
  'solarVoltage',
  'solarCurrent',
  'solarPower',
  'outputVoltage',
  'outputCurrent',
  'loadPower',
  'loadPercentage',
  'gridVoltage',
  'gridFrequency',
  'dailyEnergyProduced',
  'dailyEnergyConsumed',
  'totalEnergyProduced',
] as const satisfies readonly NumericField[];

type MetricsNumericField = (typeof METRICS_NUMERIC_FIELDS)[number];

/** SunSourceMetricsDto of SPEC.md §2.3: one stored data point. */
export type SunSourceMetrics = { sunSourceId: string; timestamp: string } & {
  [K in MetricsNumericField]: number | null;
} & {
  operatingMode: string | null;
  deviceStatus: string | null;
  faultCodes: string[] | null;
  warningCodes: string[] | null;
};

/** A timestamptz as `toISOString` writes it (UTC, milliseconds), formatted by PostgreSQL. */
export const isoTimestamp = (expression: string) =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const columnOf = (name: string) =>
  [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].find((field) => field.name === name)!.column;

/**
 * The SELECT list whose rows are SunSourceMetrics as they are sent, keys in the DTO's order, for
 * a table aliased `alias`: the timestamp is formatted by PostgreSQL exactly as `toISOString`
 * would (UTC, milliseconds), so a thousand-row history needs no per-row work here.
 */
export function metricsColumns(alias = 't'): string {
  return [
    `${alias}.sun_source_id AS "sunSourceId"`,
    `${isoTimestamp(`${alias}.ts`)} AS "timestamp"`,
    ...[...METRICS_NUMERIC_FIELDS, 'operatingMode', 'deviceStatus', 'faultCodes', 'warningCodes'].map(
      (name) => `${alias}.${columnOf(name)} AS "${name}"`,
    ),
  ].join(', ');
}
