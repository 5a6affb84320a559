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
 * `telemetry_power_increment`). An hour's own readings are summed up in its row already; what is
 * added here is the increment of each hour's first reading over the last reading before it, in an
 * earlier hour or (for the first hours) before the range.
 */

/** A direction of energy: the counter it is counted from, and the power integrated without one. */
export interface EnergyDirection {
  counter: CounterColumn;
  power: PowerColumn;
}

export const PRODUCED: EnergyDirection = { counter: 'daily_energy_produced', power: 'solar_power' };
export const CONSUMED: EnergyDirection = { counter: 'daily_energy_consumed', power: 'load_power' };

const previous = (field: string) => `previous_${field}`;

/**
 * The last reading of `counter` before $2 that the first readings from $2 on count from, as
 * [epoch seconds, kWh], NULL if none: on $2's UTC day or the day before (older ones do not
 * count), from the raw rows of $2's hour, else from the rollup's earlier hours. Parameters: $1
 * source, $2 start.
 */
export function counterReadingBefore(counter: CounterColumn): string {
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
export function powerReadingBefore(power: PowerColumn): string {
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

/**
 * `hours` (a query of rows in `telemetry_hourly`'s columns, one per hour) with, per counter,
 * `counted_<counter>`: the energy its readings of the hour carry, the first one's increment over
 * the counter's previous reading included (NULL without a reading); and per power field,
 * `integrated_<power>`: likewise, the energy integrated up to its readings of the hour (NULL when
 * none), and `day`, the hour's UTC day. The previous reading is the last one in an earlier hour
 * or else, with `fromStart`, the last one before the range's start $2 (parameters $1 source, $2
 * start). Of `hours`' own columns
 * only `hour`, the counters' first readings and `keep` are passed on: the narrower the rows, the
 * cheaper the sort by day that usually follows.
 */
export function withHourEnergy(hours: string, fromStart: boolean, keep: readonly string[] = []): string {
  // Each time as epoch seconds once per row: the rules take them several times each.
  const epochs = [
    `date_part('epoch', h.hour) AS hour_epoch`,
    ...POWER_COLUMNS.flatMap((power) => {
      const { firstAt, lastAt } = powerColumns(power);
      return [
        `date_part('epoch', h.${firstAt}) AS ${firstAt}_epoch`,
        `date_part('epoch', h.${lastAt}) AS ${lastAt}_epoch`,
      ];
    }),
  ];
  const previousReadings = [
    ...COUNTER_COLUMNS.map((counter) => {
      const { last } = counterColumns(counter);
      const before = fromStart ? counterReadingBefore(counter) : 'NULL';
      // A counter's reading at its hour: only the day matters.
      return `coalesce(max(ARRAY[h.hour_epoch, h.${last}]) FILTER (WHERE h.${last} IS NOT NULL) OVER earlier, ${before}) AS ${previous(counter)}`;
    }),
    ...POWER_COLUMNS.map((power) => {
      const { lastAt, last } = powerColumns(power);
      const before = fromStart ? powerReadingBefore(power) : 'NULL';
      return `coalesce(max(ARRAY[h.${lastAt}_epoch, h.${last}]) FILTER (WHERE h.${last} IS NOT NULL) OVER earlier, ${before}) AS ${previous(power)}`;
    }),
  ];
  const hourEnergy = [
    ...COUNTER_COLUMNS.map((counter) => {
      const { first, increase } = counterColumns(counter);
      const before = `h.${previous(counter)}`;
      return `h.${increase} + telemetry_counter_increment(${before}[1], ${before}[2], h.hour_epoch, h.${first}) AS ${counted(counter)}`;
    }),
    ...POWER_COLUMNS.map((power) => {
      const { firstAt, first, kwh } = powerColumns(power);
      const before = `h.${previous(power)}`;
      const bridge = `telemetry_power_increment(${before}[1], ${before}[2], h.${firstAt}_epoch, h.${first})`;
      // Either may be NULL: their sum when both are known, else the known one.
      return `coalesce(h.${kwh} + coalesce(${bridge}, 0), ${bridge}) AS ${integrated(power)}`;
    }),
  ];
  const passed = ['day', 'hour', ...COUNTER_COLUMNS.map((counter) => counterColumns(counter).first), ...keep];
  // Ordered by day, then hour (the same order as by hour): grouping the rows by `day` afterwards
  // needs no second sort. OFFSET 0 keeps the times' level a level of its own, computed once.
  return `
    SELECT ${passed.map((column) => `h.${column}`).join(', ')}, ${hourEnergy.join(', ')}
      FROM (
        SELECT h.*, ${previousReadings.join(', ')}
          FROM (SELECT date_trunc('day', h.hour, 'UTC') AS day, ${epochs.join(', ')}, h.*
                  FROM (${hours}) h OFFSET 0) h
        WINDOW earlier AS (ORDER BY h.day, h.hour ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
      ) h`;
}

/**
 * Aggregates over rows of `withHourEnergy` (alias h) grouped by `day`: the day's energy in kWh
 * and the method it was counted by (`counter` when the day has a counter reading, else `power`
 * when some power could be integrated, else NULL for both).
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
