import type { JsonColumn } from '@solar/database';
import { CODE_FIELDS, NUMERIC_FIELDS, NumericField, TEXT_FIELDS } from '../telemetry-fields';

/** The numeric fields of SunSourceMetricsDto, in its order. */
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

/** SunSourceMetricsDto: one stored data point. */
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
 * SunSourceMetrics as stored in a table aliased `alias`, keys in the DTO's order: the timestamp
 * is formatted by PostgreSQL exactly as `toISOString` would (UTC, milliseconds).
 */
export function metricsColumns(alias = 't'): JsonColumn[] {
  const stored = (key: string, kind: JsonColumn['kind']): JsonColumn => ({
    key,
    sql: `${alias}.${columnOf(key)}`,
    kind,
  });
  return [
    { key: 'sunSourceId', sql: `${alias}.sun_source_id`, kind: 'value' },
    { key: 'timestamp', sql: isoTimestamp(`${alias}.ts`), kind: 'value' },
    ...METRICS_NUMERIC_FIELDS.map((key) => stored(key, 'number')),
    ...['operatingMode', 'deviceStatus', 'faultCodes', 'warningCodes'].map((key) => stored(key, 'value')),
  ];
}
