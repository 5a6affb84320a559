/**
 * The columns of `telemetry_hourly` (migration 1764700000000) and the SQL that fills and merges
 * them, shared by the ingestion INSERT and the queries that read the rollup. An average is kept
 * as a sum and a count of non-null values, so hours merge into days and ranges exactly.
 */

/** Raw columns whose average the queries return. */
const AVERAGED_COLUMNS = [
  'battery_voltage',
  'state_of_charge',
  'solar_power',
  'load_percentage',
  'load_power',
  'grid_voltage',
  'grid_frequency',
] as const;

export type AveragedColumn = (typeof AVERAGED_COLUMNS)[number];

interface Extreme {
  /** The rollup column. */
  column: string;
  /** The raw column it is the extreme of. */
  of: string;
  pick: 'max' | 'min';
}

/** Extremes the queries return; the daily energy counters only rise within a day: their maximum is the day's total. */
const EXTREMES: readonly Extreme[] = [
  { column: 'max_solar_power', of: 'solar_power', pick: 'max' },
  { column: 'max_load_power', of: 'load_power', pick: 'max' },
  { column: 'min_state_of_charge', of: 'state_of_charge', pick: 'min' },
  { column: 'max_state_of_charge', of: 'state_of_charge', pick: 'max' },
  { column: 'max_daily_energy_produced', of: 'daily_energy_produced', pick: 'max' },
  { column: 'max_daily_energy_consumed', of: 'daily_energy_consumed', pick: 'max' },
];

export const sumColumn = (column: AveragedColumn) => `${column}_sum`;
export const countColumn = (column: AveragedColumn) => `${column}_count`;

/** The columns that hours add up: the sample count, and each average's sum and count. */
const ADDITIVE_COLUMNS = [
  'sample_count',
  ...AVERAGED_COLUMNS.flatMap((column) => [sumColumn(column), countColumn(column)]),
];

/** Every column of `telemetry_hourly` after the key, in table order. */
export const HOURLY_VALUE_COLUMNS = [...ADDITIVE_COLUMNS, ...EXTREMES.map((extreme) => extreme.column)];

/** The raw columns the rollup is computed from. */
export const RAW_ROLLUP_COLUMNS = [
  ...new Set([...AVERAGED_COLUMNS, ...EXTREMES.map((extreme) => extreme.of)]),
];

/**
 * Aggregates of raw rows into `HOURLY_VALUE_COLUMNS`, in that order (a sum of no values is 0).
 * Counts as int, the columns' type: summing bigints would give numeric, several times slower.
 */
export const RAW_TO_HOURLY = [
  'count(*)::int',
  ...AVERAGED_COLUMNS.flatMap((column) => [`coalesce(sum(${column}), 0)`, `count(${column})::int`]),
  ...EXTREMES.map((extreme) => `${extreme.pick}(${extreme.of})`),
];

/**
 * `ON CONFLICT DO UPDATE` assignments adding new rows of an hour to its stored rollup:
 * `greatest`/`least` ignore NULLs, so an extreme stays NULL only while every value was NULL.
 */
export const ADD_TO_HOURLY = [
  ...ADDITIVE_COLUMNS.map((column) => `${column} = telemetry_hourly.${column} + EXCLUDED.${column}`),
  ...EXTREMES.map(
    (extreme) =>
      `${extreme.column} = ${extreme.pick === 'max' ? 'greatest' : 'least'}(telemetry_hourly.${extreme.column}, EXCLUDED.${extreme.column})`,
  ),
];
