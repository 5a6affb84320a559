import {
  COUNTER_COLUMNS,
  counterColumns,
  CounterColumn,
  POWER_COLUMNS,
  powerColumns,
  PowerColumn,
} from '../storage/telemetry-hourly';
import { EnergyReadingsBefore, POWER_GAP_MS, Reading } from './energy-increments';

/**
 * A day's energy in SQL, over rows of `telemetry_hourly` (whole hours) and hours aggregated from
 * raw rows the same way (`hourlyFromRaw`): what `DailyEnergyTally` computes from the raw readings,
 * through the same two per-reading rules (`telemetry_counter_increment`,
 * `telemetry_power_increment`). An hour's row sums up its own readings, and its opening what its
 * first reading carries over the last reading before the hour, so a day is the sum of its hours.
 */

/** A direction of energy: the counter it is counted from, and the power integrated without one. */
export interface EnergyDirection {
  counter: CounterColumn;
  power: PowerColumn;
}

export const PRODUCED: EnergyDirection = { counter: 'daily_energy_produced', power: 'solar_power' };
export const CONSUMED: EnergyDirection = { counter: 'daily_energy_consumed', power: 'load_power' };

const previous = (field: string) => `previous_${field}`;

type EnergyField = CounterColumn | PowerColumn;
const isCounter = (field: EnergyField): field is CounterColumn =>
  (COUNTER_COLUMNS as readonly string[]).includes(field);

/**
 * The last reading of `counter` before $2 that the first readings from $2 on count from, as
 * [epoch seconds, kWh], NULL if none: on $2's UTC day or the day before (older ones do not
 * count), from the raw rows of $2's hour, else from the rollup's earlier hours. Parameters: $1
 * source, $2 start.
 */
function counterReadingBefore(counter: CounterColumn): string {
  const { last } = counterColumns(counter);
  return `coalesce(
    (SELECT ARRAY[date_part('epoch', b.ts), b.${counter}] FROM telemetry b
      WHERE b.sun_source_id = $1 AND b.ts >= date_trunc('hour', $2::timestamptz, 'UTC') AND b.ts < $2
        AND b.${counter} IS NOT NULL
      ORDER BY b.ts DESC LIMIT 1),
    (SELECT ARRAY[date_part('epoch', b.hour), b.${last}] FROM telemetry_hourly b
      WHERE b.sun_source_id = $1 AND b.hour >= date_trunc('day', $2::timestamptz, 'UTC') - interval '1 day'
        AND b.hour < date_trunc('hour', $2::timestamptz, 'UTC') AND b.${last} IS NOT NULL
      ORDER BY b.hour DESC LIMIT 1))`;
}

/**
 * The last reading of `power` before $2, as [epoch seconds, W], if it is recent enough to bridge
 * to the first reading from $2 on. Parameters: $1 source, $2 start.
 */
function powerReadingBefore(power: PowerColumn): string {
  return `(SELECT ARRAY[date_part('epoch', b.ts), b.${power}] FROM telemetry b
            WHERE b.sun_source_id = $1 AND b.ts >= $2::timestamptz - interval '${POWER_GAP_MS / 1000} seconds'
              AND b.ts < $2 AND b.${power} IS NOT NULL
            ORDER BY b.ts DESC LIMIT 1)`;
}

/** The readings before $2 that the first ones from $2 on count from, as one row (`readingsBeforeOf`). Parameters: $1 source, $2 start. */
export const READINGS_BEFORE = `SELECT ${[
  ...COUNTER_COLUMNS.map((counter) => `${counterReadingBefore(counter)} AS ${previous(counter)}`),
  ...POWER_COLUMNS.map((power) => `${powerReadingBefore(power)} AS ${previous(power)}`),
].join(', ')}`;

/** READINGS_BEFORE's row as readings (times in ms). */
export function readingsBeforeOf(row: Record<string, number[] | null>): EnergyReadingsBefore {
  const reading = (field: string): Reading | null => {
    const pair = row[previous(field)];
    return pair ? { at: pair[0] * 1000, value: pair[1] } : null;
  };
  return {
    produced: { counter: reading(PRODUCED.counter), power: reading(PRODUCED.power) },
    consumed: { counter: reading(CONSUMED.counter), power: reading(CONSUMED.power) },
  };
}

const counted = (counter: CounterColumn) => `counted_${counter}`;
const integrated = (power: PowerColumn) => `integrated_${power}`;

/** NULL when both are, else their sum with a NULL as 0. */
const sumOfKnown = (a: string, b: string) =>
  `CASE WHEN ${a} IS NULL THEN ${b} ELSE ${a} + coalesce(${b}, 0) END`;

/**
 * The energy of an hour (alias `h`, in `telemetry_hourly`'s columns) whose openings are the
 * expressions `opening(column)`: per counter `counted_<counter>` (0 without a reading) and its
 * first reading (whether the day has one), per power field `integrated_<power>` (NULL when
 * nothing could be integrated).
 */
function hourEnergy(opening: (field: EnergyField) => string): string[] {
  return [
    ...COUNTER_COLUMNS.flatMap((counter) => {
      const { first, increase } = counterColumns(counter);
      return [`h.${first}`, `h.${increase} + coalesce(${opening(counter)}, 0) AS ${counted(counter)}`];
    }),
    ...POWER_COLUMNS.map(
      (power) => `${sumOfKnown(`h.${powerColumns(power).kwh}`, opening(power))} AS ${integrated(power)}`,
    ),
  ];
}

/** The rollup's column of a field's opening. */
const openingColumn = (field: EnergyField) =>
  isCounter(field) ? counterColumns(field).opening : powerColumns(field).opening;

/**
 * One row per UTC hour of a source's data in a range, with `day` (its UTC day), the columns
 * `keep` of `telemetry_hourly`, and its energy (`hourEnergy`): the whole hours from the rollup; the
 * partial hours at either end aggregated from their raw rows (`edges`, in `telemetry_hourly`'s
 * columns), whose first readings count from the last readings before the range (the first
 * partial hour), or from those before their hour, as the rollup's opening of that hour says (the
 * last). Parameters: $1 source, $2 start, $4 and $5 the whole hours [from, to).
 */
export function hoursWithEnergyOfRange(edges: string, keep: readonly string[]): string {
  const kept = keep.map((column) => `h.${column}`);
  const fromBefore = (field: EnergyField) => {
    const before = `b.${previous(field)}`;
    if (isCounter(field)) {
      const { first } = counterColumns(field);
      return `telemetry_counter_increment(${before}[1], ${before}[2], date_part('epoch', h.hour), h.${first})`;
    }
    const { firstAt, first } = powerColumns(field);
    return `telemetry_power_increment(${before}[1], ${before}[2], date_part('epoch', h.${firstAt}), h.${first})`;
  };
  const firstReading = (field: EnergyField) =>
    isCounter(field) ? counterColumns(field).first : powerColumns(field).first;
  // The last partial hour starts at its hour: its first reading is the hour's, when it has one.
  const edgeOpening = (field: EnergyField) =>
    `CASE WHEN h.${firstReading(field)} IS NULL THEN NULL WHEN h.hour < $4 THEN ${fromBefore(field)}
          ELSE s.${openingColumn(field)} END`;
  return `
    SELECT date_trunc('day', hour, 'UTC') AS day, * FROM (
      SELECT h.hour, ${[...kept, ...hourEnergy((field) => `h.${openingColumn(field)}`)].join(', ')}
        FROM telemetry_hourly h
       WHERE h.sun_source_id = $1 AND h.hour >= $4 AND h.hour < $5
      UNION ALL
      SELECT h.hour, ${[...kept, ...hourEnergy(edgeOpening)].join(', ')}
        FROM (${edges}) h
        CROSS JOIN (${READINGS_BEFORE} OFFSET 0) b
        LEFT JOIN telemetry_hourly s ON s.sun_source_id = $1 AND s.hour = h.hour
    ) hours`;
}

/**
 * Aggregates over rows of `hoursWithEnergyOfRange` (alias h) grouped by `day`: the day's energy
 * in kWh and the method it was counted by (`counter` when the day has a counter reading, else
 * `power` when some power could be integrated, else NULL for both).
 */
export function dayEnergy(direction: EnergyDirection): { kwh: string; method: string } {
  const hasCounter = `count(h.${counterColumns(direction.counter).first}) > 0`;
  const counterKwh = `sum(h.${counted(direction.counter)})`;
  const powerKwh = `sum(h.${integrated(direction.power)})`;
  return {
    kwh: `CASE WHEN ${hasCounter} THEN ${counterKwh} ELSE ${powerKwh} END`,
    method: `CASE WHEN ${hasCounter} THEN 'counter' WHEN ${powerKwh} IS NOT NULL THEN 'power' END`,
  };
}

/** Rows of every hour of the source's rollup ($1) in `hoursWithEnergyOfRange`'s columns (no `keep`). */
export const ALL_HOURS_WITH_ENERGY = `
  SELECT date_trunc('day', h.hour, 'UTC') AS day, h.hour, ${hourEnergy((field) => `h.${openingColumn(field)}`).join(', ')}
    FROM telemetry_hourly h
   WHERE h.sun_source_id = $1`;
