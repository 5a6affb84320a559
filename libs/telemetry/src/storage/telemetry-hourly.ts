/**
 * The columns of `telemetry_hourly` (migrations 1764700000000 and 1764950000000) and the SQL that
 * fills and merges them, shared by the ingestion INSERT and the queries that read the rollup. An
 * average is kept as a sum and a count of non-null values, so hours merge into days and ranges
 * exactly. A day's energy is counted from readings in time order (`energy-increments.ts`), so an
 * hour keeps, per energy counter and per power field, its first and last reading and what its
 * readings add up to between them. What the hour's first reading carries over the last reading
 * before the hour (its opening, `opening_*`) is kept by the database's triggers at the end of
 * each statement that changes hours (`refresh_telemetry_openings`), not by the SQL here.
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

/** Extremes the queries return. */
const EXTREMES: readonly Extreme[] = [
  { column: 'max_solar_power', of: 'solar_power', pick: 'max' },
  { column: 'max_load_power', of: 'load_power', pick: 'max' },
  { column: 'min_state_of_charge', of: 'state_of_charge', pick: 'min' },
  { column: 'max_state_of_charge', of: 'state_of_charge', pick: 'max' },
];

/** Energy counters (kWh): a day's energy is the sum of their increments. */
export const COUNTER_COLUMNS = ['daily_energy_produced', 'daily_energy_consumed'] as const;
export type CounterColumn = (typeof COUNTER_COLUMNS)[number];

/** Power fields (W): integrated over time where a day has no counter reading. */
export const POWER_COLUMNS = ['solar_power', 'load_power'] as const;
export type PowerColumn = (typeof POWER_COLUMNS)[number];

/**
 * A counter's rollup columns: its first and last reading of the hour, the increments between its
 * readings, and its opening (what the first reading carries over the last reading before the hour).
 */
export const counterColumns = (counter: CounterColumn) => ({
  first: `first_${counter}`,
  last: `last_${counter}`,
  increase: `${counter}_increase`,
  opening: `opening_${counter}`,
});

/**
 * A power field's rollup columns: its first and last reading with their times, the energy (kWh)
 * between its readings, and its opening (the energy between the last reading before the hour and
 * the first).
 */
export const powerColumns = (power: PowerColumn) => ({
  firstAt: `first_${power}_at`,
  first: `first_${power}`,
  lastAt: `last_${power}_at`,
  last: `last_${power}`,
  kwh: `${power}_kwh`,
  opening: `opening_${power}_kwh`,
});

export const sumColumn = (column: AveragedColumn) => `${column}_sum`;
export const countColumn = (column: AveragedColumn) => `${column}_count`;

/** The columns that hours add up: the sample count, and each average's sum and count. */
const ADDITIVE_COLUMNS = [
  'sample_count',
  ...AVERAGED_COLUMNS.flatMap((column) => [sumColumn(column), countColumn(column)]),
];

/** The columns every query reads: counts, sums and extremes. */
export const BASIC_HOURLY_COLUMNS = [...ADDITIVE_COLUMNS, ...EXTREMES.map((extreme) => extreme.column)];

/** The columns a day's energy is counted from. */
export const ENERGY_HOURLY_COLUMNS = [
  ...COUNTER_COLUMNS.flatMap((counter) => Object.values(counterColumns(counter))),
  ...POWER_COLUMNS.flatMap((power) => Object.values(powerColumns(power))),
];

/**
 * Every column of `telemetry_hourly` after the key (but `recount`, only ever true inside a
 * statement). The hour's first and last timestamps tell whether a batch's points come after or
 * before those stored (`ADD_TO_HOURLY`).
 */
export const HOURLY_VALUE_COLUMNS = [
  ...BASIC_HOURLY_COLUMNS,
  'first_ts',
  'last_ts',
  ...ENERGY_HOURLY_COLUMNS,
];

/** The raw columns the rollup is computed from. */
export const RAW_ROLLUP_COLUMNS = [
  ...new Set([...AVERAGED_COLUMNS, ...EXTREMES.map((extreme) => extreme.of), ...COUNTER_COLUMNS]),
];

/**
 * Aggregates of raw rows into `BASIC_HOURLY_COLUMNS`, in that order (a sum of no values is 0).
 * Counts as int, the columns' type: summing bigints would give numeric, several times slower.
 */
export const RAW_TO_BASIC_HOURLY = [
  'count(*)::int',
  ...AVERAGED_COLUMNS.flatMap((column) => [`coalesce(sum(${column}), 0)`, `count(${column})::int`]),
  ...EXTREMES.map((extreme) => `${extreme.pick}(${extreme.of})`),
];

/**
 * Aggregates of one batch's new rows of an hour into `HOURLY_VALUE_COLUMNS` (named so) and
 * `several`, cheaply: exact unless `several`, when the batch brings more than one reading of an
 * energy counter or power field to the hour (a live device's batch brings one point; such hours
 * go through `hourlyFromRaw` instead). Openings as if nothing came before (a counter's first
 * reading counts whole, power bridges to nothing): right for a source's first hour, and put right
 * at the end of the statement otherwise (`refresh_telemetry_openings`).
 */
export const BATCH_TO_HOURLY = [
  ...[
    ...RAW_TO_BASIC_HOURLY,
    'min(ts)',
    'max(ts)',
    ...COUNTER_COLUMNS.flatMap((counter) => [
      `max(${counter})`,
      `max(${counter})`,
      '0::float8',
      `max(${counter})`,
    ]),
    ...POWER_COLUMNS.flatMap((power) => {
      const at = `max(ts) FILTER (WHERE ${power} IS NOT NULL)`;
      return [at, `max(${power})`, at, `max(${power})`, 'NULL::float8', 'NULL::float8'];
    }),
  ].map((sql, index) => `${sql} AS ${HOURLY_VALUE_COLUMNS[index]}`),
  `${[...COUNTER_COLUMNS, ...POWER_COLUMNS].map((column) => `count(${column}) > 1`).join(' OR ')} AS several`,
];

/**
 * `SELECT sun_source_id, hour, <HOURLY_VALUE_COLUMNS>` over the raw rows `rows` (a FROM item of
 * telemetry rows with alias t, and a condition), exactly: each reading is paired with the previous
 * reading of its field among `rows` (`previous_*`: [epoch seconds, value]); the pairs within an
 * hour make its increase and energy, the pair ending at its first reading its opening (as if
 * nothing came before `rows`: exact when they hold the readings before, else put right at the end
 * of the statement by `refresh_telemetry_openings`).
 */
export function hourlyFromRaw(rows: string): string {
  const pairedColumns = [...COUNTER_COLUMNS, ...POWER_COLUMNS].map(
    (field) =>
      `max(ARRAY[date_part('epoch', r.ts), r.${field}]) FILTER (WHERE r.${field} IS NOT NULL) OVER earlier AS previous_${field}`,
  );
  const sameHour = (field: string) => `FILTER (WHERE previous_${field}[1] >= hour_epoch)`;
  const opening = (field: string) =>
    `FILTER (WHERE ${field} IS NOT NULL AND (previous_${field} IS NULL OR previous_${field}[1] < hour_epoch))`;
  const firstOf = (field: string) => `(min(ARRAY[epoch, ${field}]) FILTER (WHERE ${field} IS NOT NULL))[2]`;
  const lastOf = (field: string) => `(max(ARRAY[epoch, ${field}]) FILTER (WHERE ${field} IS NOT NULL))[2]`;
  const aggregates = [
    ...RAW_TO_BASIC_HOURLY,
    'min(ts)',
    'max(ts)',
    ...COUNTER_COLUMNS.flatMap((counter) => [
      firstOf(counter),
      lastOf(counter),
      `coalesce(sum(telemetry_counter_increment(previous_${counter}[1], previous_${counter}[2], epoch, ${counter})) ${sameHour(counter)}, 0)`,
      `sum(telemetry_counter_increment(previous_${counter}[1], previous_${counter}[2], epoch, ${counter})) ${opening(counter)}`,
    ]),
    ...POWER_COLUMNS.flatMap((power) => [
      `min(ts) FILTER (WHERE ${power} IS NOT NULL)`,
      firstOf(power),
      `max(ts) FILTER (WHERE ${power} IS NOT NULL)`,
      lastOf(power),
      `sum(telemetry_power_increment(previous_${power}[1], previous_${power}[2], epoch, ${power})) ${sameHour(power)}`,
      `sum(telemetry_power_increment(previous_${power}[1], previous_${power}[2], epoch, ${power})) ${opening(power)}`,
    ]),
  ];
  return `
    SELECT sun_source_id, hour, ${aggregates.map((sql, index) => `${sql} AS ${HOURLY_VALUE_COLUMNS[index]}`).join(', ')}
      FROM (
        SELECT r.*, date_part('epoch', r.ts) AS epoch, date_part('epoch', r.hour) AS hour_epoch, ${pairedColumns.join(', ')}
          FROM (SELECT t.sun_source_id, t.ts, date_trunc('hour', t.ts, 'UTC') AS hour,
                       ${RAW_ROLLUP_COLUMNS.map((column) => `t.${column}`).join(', ')}
                  FROM ${rows}) r
        WINDOW earlier AS (PARTITION BY r.sun_source_id ORDER BY r.ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
      ) paired
     GROUP BY sun_source_id, hour`;
}

const stored = (column: string) => `telemetry_hourly.${column}`;
const added = (column: string) => `EXCLUDED.${column}`;
/** The batch's points of the hour all come after (or all before) those stored. */
const AFTER = `${added('first_ts')} > ${stored('last_ts')}`;
const BEFORE = `${added('last_ts')} < ${stored('first_ts')}`;
const epochOf = (timestamp: string) => `date_part('epoch', ${timestamp})`;

/** NULL when all are, else their sum with NULLs as 0. */
const sumOfKnown = (...terms: string[]) =>
  `CASE WHEN ${terms.map((term) => `${term} IS NULL`).join(' AND ')} THEN NULL ` +
  `ELSE ${terms.map((term) => `coalesce(${term}, 0)`).join(' + ')} END`;

/** Which of two segments' first (or last) reading is the merged hour's: the earlier (later) one's, when it has one. */
const earlierFirst = (column: string) =>
  `CASE WHEN ${AFTER} THEN coalesce(${stored(column)}, ${added(column)}) ELSE coalesce(${added(column)}, ${stored(column)}) END`;
const laterLast = (column: string) =>
  `CASE WHEN ${AFTER} THEN coalesce(${added(column)}, ${stored(column)}) ELSE coalesce(${stored(column)}, ${added(column)}) END`;

/** The counter's increment from the earlier segment's last reading to the later one's first (same hour: same day). */
const counterJoin = (last: string, first: string) =>
  `CASE WHEN ${last} IS NULL OR ${first} IS NULL THEN 0 ELSE telemetry_counter_increment(0, ${last}, 0, ${first}) END`;

/**
 * `ON CONFLICT DO UPDATE` assignments adding a batch's rows of an hour to its stored rollup:
 * `greatest`/`least` ignore NULLs, so an extreme stays NULL only while every value was NULL. The
 * energy columns join the two in time order when one lies wholly after the other; when their
 * points interleave (a late point inside the stored ones), `recount` is set, and the
 * `recount_telemetry_hour` trigger recounts the hour from all its raw rows at the end of the
 * statement (so whatever these assign then is replaced).
 */
export const ADD_TO_HOURLY = [
  ...ADDITIVE_COLUMNS.map((column) => `${column} = ${stored(column)} + ${added(column)}`),
  ...EXTREMES.map(
    (extreme) =>
      `${extreme.column} = ${extreme.pick === 'max' ? 'greatest' : 'least'}(${stored(extreme.column)}, ${added(extreme.column)})`,
  ),
  `first_ts = least(${stored('first_ts')}, ${added('first_ts')})`,
  `last_ts = greatest(${stored('last_ts')}, ${added('last_ts')})`,
  ...COUNTER_COLUMNS.flatMap((counter) => {
    const { first, last, increase } = counterColumns(counter);
    const join = `CASE WHEN ${AFTER} THEN ${counterJoin(stored(last), added(first))} ELSE ${counterJoin(added(last), stored(first))} END`;
    return [
      `${first} = ${earlierFirst(first)}`,
      `${last} = ${laterLast(last)}`,
      `${increase} = ${stored(increase)} + ${added(increase)} + ${join}`,
    ];
  }),
  ...POWER_COLUMNS.flatMap((power) => {
    const { firstAt, first, lastAt, last, kwh } = powerColumns(power);
    const bridge = (from: typeof stored, to: typeof stored) =>
      `telemetry_power_increment(${epochOf(from(lastAt))}, ${from(last)}, ${epochOf(to(firstAt))}, ${to(first)})`;
    return [
      `${firstAt} = ${earlierFirst(firstAt)}`,
      `${first} = ${earlierFirst(first)}`,
      `${lastAt} = ${laterLast(lastAt)}`,
      `${last} = ${laterLast(last)}`,
      `${kwh} = ${sumOfKnown(stored(kwh), added(kwh), `CASE WHEN ${AFTER} THEN ${bridge(stored, added)} ELSE ${bridge(added, stored)} END`)}`,
    ];
  }),
  `recount = ${added('recount')} OR NOT (${AFTER} OR ${BEFORE})`,
];
