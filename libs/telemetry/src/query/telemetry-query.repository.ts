import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MeasuredDayProduction } from '@solar/domain';
import {
  EncodedJson,
  JsonArrayStream,
  JsonColumn,
  jsonMember,
  jsonObject,
  LONG_STATEMENT_TIMEOUT,
  plannedOnce,
  PreparedQueries,
  selectList,
  SqlRunner,
} from '@solar/database';
import {
  ALL_HOURS_WITH_ENERGY,
  CONSUMED,
  dayEnergy,
  hoursWithEnergyOfRange,
  PRODUCED,
} from '../energy/daily-energy-sql';
import { EnergyMethod } from '../energy/energy-increments';
import {
  AveragedColumn,
  BASIC_HOURLY_COLUMNS,
  countColumn,
  hourlyFromRaw,
  RAW_ROLLUP_COLUMNS,
  RAW_TO_BASIC_HOURLY,
  sumColumn,
} from '../storage/telemetry-hourly';
import { isoTimestamp, metricsColumns, SunSourceMetrics } from './sun-source-metrics';
import { wholeHoursOf } from './whole-hours';

export interface TimeRange {
  start: Date;
  end: Date;
}

/** One UTC hour of a source (SunSourceHistoricalDataDto, plus what reports need). */
export interface HourlyRow {
  timestamp: string;
  averageBatteryVoltage: number | null;
  averageStateOfCharge: number | null;
  averageSolarPower: number | null;
  averageLoadPercentage: number | null;
  averageLoadPower: number | null;
  maxSolarPower: number | null;
  maxLoadPower: number | null;
  minStateOfCharge: number | null;
  sampleCount: number;
}

/** One UTC day, with the non-null counts behind each average so that weeks can be weighted exactly. */
export interface DailyRow {
  day: Date;
  sampleCount: number;
  solarPowerAvg: number | null;
  solarPowerCount: number;
  solarPowerMax: number | null;
  loadPowerAvg: number | null;
  loadPowerCount: number;
  loadPowerMax: number | null;
  socAvg: number | null;
  socCount: number;
  socMin: number | null;
  socMax: number | null;
  voltageAvg: number | null;
  voltageCount: number;
  gridVoltageAvg: number | null;
  gridVoltageCount: number;
  gridFreqAvg: number | null;
  gridFreqCount: number;
  energyProduced: number | null;
  energyConsumed: number | null;
  energyProducedMethod: EnergyMethod | null;
  energyConsumedMethod: EnergyMethod | null;
}

export interface RangeSummaryRow {
  dataPoints: number;
  avgSolarPower: number | null;
  maxSolarPower: number | null;
  avgStateOfCharge: number | null;
  minStateOfCharge: number | null;
  avgBatteryVoltage: number | null;
  avgLoadPower: number | null;
  maxLoadPower: number | null;
}

export interface RawPayloadRow {
  ts: Date;
  receivedAt: Date;
  payload: Record<string, unknown>;
}

export interface SourceActivity {
  sunSourceId: string;
  messageCount: number;
  lastMessageTime: Date | null;
}

/** The raw rows of a range's partial hours at either end (two range scans, so neither reads the hours in between); alias t. */
const EDGES = `(
    SELECT sun_source_id, ts, ${RAW_ROLLUP_COLUMNS.join(', ')} FROM telemetry
     WHERE sun_source_id = $1 AND ts >= $2 AND ts < $4 AND ts <= $3
    UNION ALL
    SELECT sun_source_id, ts, ${RAW_ROLLUP_COLUMNS.join(', ')} FROM telemetry
     WHERE sun_source_id = $1 AND ts >= $5 AND ts <= $3) t`;

/**
 * One row per UTC hour of a source's data in a range, in `telemetry_hourly`'s columns but those
 * of energy (BASIC_HOURLY_COLUMNS): the whole hours from the rollup, the partial hours at either
 * end aggregated from the raw rows. Parameters: $1 source, $2 start and $3 end (both included), $4
 * and $5 the whole hours [from, to) (`wholeHoursOf`).
 */
const HOURS_OF_RANGE = `
  SELECT hour, ${BASIC_HOURLY_COLUMNS.join(', ')}
    FROM telemetry_hourly
   WHERE sun_source_id = $1 AND hour >= $4 AND hour < $5
  UNION ALL
  SELECT date_trunc('hour', t.ts, 'UTC'), ${RAW_TO_BASIC_HOURLY.join(', ')}
    FROM ${EDGES}
   GROUP BY 1`;

/**
 * As HOURS_OF_RANGE, with each hour's `day` and energy (`hoursWithEnergyOfRange`): the first
 * readings of the range count from the last ones before it, so the energy between those and the
 * range's first readings is the range's.
 */
const HOURS_WITH_ENERGY_OF_RANGE = hoursWithEnergyOfRange(hourlyFromRaw(EDGES), BASIC_HOURLY_COLUMNS);

// Over rows of HOURS_OF_RANGE (alias h): what avg() and count() of the raw rows would give.
const average = (column: AveragedColumn) =>
  `sum(h.${sumColumn(column)}) / nullif(sum(h.${countColumn(column)}), 0)::float8`;
const valueCount = (column: AveragedColumn) => `sum(h.${countColumn(column)})`;

// Columns of aggregates: PostgreSQL gives numeric for sums and averages of doubles, and bigint
// for counts; every figure here fits a double.
const float = (key: string, expression: string): JsonColumn => ({
  key,
  sql: `(${expression})::float8`,
  kind: 'number',
});
const integer = (key: string, expression: string): JsonColumn => ({
  key,
  sql: `(${expression})::int`,
  kind: 'number',
});

/** HourlyRow, over rows of HOURS_OF_RANGE grouped by hour. */
const HOURLY_COLUMNS: JsonColumn[] = [
  { key: 'timestamp', sql: isoTimestamp('h.hour'), kind: 'value' },
  float('averageBatteryVoltage', average('battery_voltage')),
  float('averageStateOfCharge', average('state_of_charge')),
  float('averageSolarPower', average('solar_power')),
  float('averageLoadPercentage', average('load_percentage')),
  float('averageLoadPower', average('load_power')),
  float('maxSolarPower', 'max(h.max_solar_power)'),
  float('maxLoadPower', 'max(h.max_load_power)'),
  float('minStateOfCharge', 'min(h.min_state_of_charge)'),
  integer('sampleCount', 'sum(h.sample_count)'),
];
/** The UTC day of a row of `hoursWithEnergyOfRange`. */
const DAY = 'h.day';

const PRODUCED_ENERGY = dayEnergy(PRODUCED);
const CONSUMED_ENERGY = dayEnergy(CONSUMED);

/** DailySummary's figures of a UTC day in its order, over HOURS_WITH_ENERGY_OF_RANGE by day. */
const DAY_FIGURES: JsonColumn[] = [
  float('solarPowerAvg', average('solar_power')),
  float('solarPowerMax', 'max(h.max_solar_power)'),
  float('loadPowerAvg', average('load_power')),
  float('loadPowerMax', 'max(h.max_load_power)'),
  float('socAvg', average('state_of_charge')),
  float('socMin', 'min(h.min_state_of_charge)'),
  float('socMax', 'max(h.max_state_of_charge)'),
  float('voltageAvg', average('battery_voltage')),
  float('gridVoltageAvg', average('grid_voltage')),
  float('gridFreqAvg', average('grid_frequency')),
  float('energyProduced', PRODUCED_ENERGY.kwh),
  float('energyConsumed', CONSUMED_ENERGY.kwh),
  integer('sampleCount', 'sum(h.sample_count)'),
  { key: 'energyProducedMethod', sql: PRODUCED_ENERGY.method, kind: 'value' },
  { key: 'energyConsumedMethod', sql: CONSUMED_ENERGY.method, kind: 'value' },
];

/** The non-null counts behind the day's averages, which ISO weeks are weighted by (DailyRow). */
const DAY_WEIGHTS: JsonColumn[] = [
  integer('solarPowerCount', valueCount('solar_power')),
  integer('loadPowerCount', valueCount('load_power')),
  integer('socCount', valueCount('state_of_charge')),
  integer('voltageCount', valueCount('battery_voltage')),
  integer('gridVoltageCount', valueCount('grid_voltage')),
  integer('gridFreqCount', valueCount('grid_frequency')),
];

const DAILY_SUMMARY_COLUMNS: JsonColumn[] = [
  { key: 'date', sql: `to_char(${DAY} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`, kind: 'value' },
  ...DAY_FIGURES,
];

/** RangeSummaryRow, over all rows of HOURS_OF_RANGE. */
const SUMMARY_COLUMNS: JsonColumn[] = [
  integer('dataPoints', 'coalesce(sum(h.sample_count), 0)'),
  float('avgSolarPower', average('solar_power')),
  float('maxSolarPower', 'max(h.max_solar_power)'),
  float('avgStateOfCharge', average('state_of_charge')),
  float('minStateOfCharge', 'min(h.min_state_of_charge)'),
  float('avgBatteryVoltage', average('battery_voltage')),
  float('avgLoadPower', average('load_power')),
  float('maxLoadPower', 'max(h.max_load_power)'),
];

// The statements, built once: the hot reads run them on every request of a dashboard.
const METRICS = selectList(metricsColumns('t'));
const METRICS_JSON = jsonObject(metricsColumns('t'));

/** Parameters: $1 source. */
const LATEST = `SELECT ${METRICS} FROM telemetry t WHERE t.sun_source_id = $1 ORDER BY t.ts DESC LIMIT 1`;

/** Parameters: $1 source, $2 start, $3 end, $4 limit. */
const HISTORY = `
  SELECT ${METRICS_JSON} FROM telemetry t
   WHERE t.sun_source_id = $1 AND t.ts >= $2 AND t.ts <= $3
   ORDER BY t.ts DESC LIMIT $4`;

/** `select` over the latest row of each source `s` (alias t), joined laterally as `l`. */
const latestOfEach = (select: string) => `
   CROSS JOIN LATERAL (
     SELECT ${select} FROM telemetry t WHERE t.sun_source_id = s.id ORDER BY t.ts DESC LIMIT 1) l`;

/** Parameters: $1 owner. */
const LATEST_OF_OWNED = `
  SELECT l.* FROM sun_sources s ${latestOfEach(METRICS)}
   WHERE s.user_id = $1
   ORDER BY s.created_at, s.id`;

/** Parameters: $1 owner, $2 source ids. One member `"id":SunSourceMetrics` per source with data. */
const LATEST_BY_ID_OF_OWNED = `
  SELECT ${jsonMember('s.id', 'l.metrics')} FROM sun_sources s ${latestOfEach(`${METRICS_JSON} AS metrics`)}
   WHERE s.user_id = $1 AND s.id = ANY($2::uuid[])
   ORDER BY s.created_at, s.id`;

// Parameters of the following: as HOURS_OF_RANGE's (`hoursOfRangeParameters`).
// Planned once per connection: PostgreSQL estimates their plan for unknown parameters far above
// its plans for actual ones and so plans them on every run, though that plan, pruning the
// partitions as it starts, runs as fast or faster (60-day summary 2.5 → 1.7 ms, planning included).
const HOURLY = plannedOnce(
  `SELECT ${jsonObject(HOURLY_COLUMNS)} FROM (${HOURS_OF_RANGE}) h GROUP BY h.hour ORDER BY h.hour`,
);
const DAILY_SUMMARIES = plannedOnce(`
  SELECT ${jsonObject(DAILY_SUMMARY_COLUMNS)} FROM (${HOURS_WITH_ENERGY_OF_RANGE}) h
   GROUP BY ${DAY} ORDER BY ${DAY}`);
const DAILY = plannedOnce(`
  SELECT ${DAY} AS "day", ${selectList([...DAY_FIGURES, ...DAY_WEIGHTS])} FROM (${HOURS_WITH_ENERGY_OF_RANGE}) h
   GROUP BY 1 ORDER BY 1`);

/** Parameters: $1 source. Every day of its telemetry with a measured production, from the rollup alone. */
const PRODUCTION_BY_DAY = `
  SELECT ${DAY} AS "day", (${PRODUCED_ENERGY.kwh})::float8 AS "energyKwh", ${PRODUCED_ENERGY.method} AS "method"
    FROM (${ALL_HOURS_WITH_ENERGY}) h
   GROUP BY 1
  HAVING ${PRODUCED_ENERGY.method} IS NOT NULL
   ORDER BY 1`;
const SUMMARY = plannedOnce(`SELECT ${selectList(SUMMARY_COLUMNS)} FROM (${HOURS_OF_RANGE}) h`);

const hoursOfRangeParameters = (sunSourceId: string, range: TimeRange) => {
  const whole = wholeHoursOf(range);
  return [sunSourceId, range.start, range.end, whole.from, whole.to];
};

/**
 * Every read of stored telemetry. Callers pass a source id they have already checked belongs to
 * the user (the sources' service does that); multi-source reads take the owner id and join.
 * Time ranges include both ends; buckets are UTC.
 */
@Injectable()
export class TelemetryQueryRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    /** The reads an owner's dashboard makes over and over. */
    @Inject(PreparedQueries) private readonly reads: SqlRunner,
  ) {}

  async latest(sunSourceId: string): Promise<SunSourceMetrics | undefined> {
    const rows: SunSourceMetrics[] = await this.reads.query(LATEST, [sunSourceId]);
    return rows[0];
  }

  /** Newest first, at most `limit`: SunSourceMetrics[], streamed. */
  history(sunSourceId: string, range: TimeRange, limit: number): Promise<JsonArrayStream> {
    return this.reads.streamJson(HISTORY, [sunSourceId, range.start, range.end, limit]);
  }

  /** The latest point of each of the owner's sources. */
  latestOfOwned(ownerId: string): Promise<SunSourceMetrics[]> {
    return this.reads.query(LATEST_OF_OWNED, [ownerId]);
  }

  /** The latest point of each of the owner's sources among `ids`, by source id, encoded. */
  latestByIdOfOwned(ownerId: string, ids: string[]): Promise<EncodedJson> {
    return this.reads.queryJson(LATEST_BY_ID_OF_OWNED, [ownerId, ids], 'object');
  }

  /** The UTC hours of the range as HourlyRow[], encoded. */
  hourly(sunSourceId: string, range: TimeRange): Promise<EncodedJson> {
    return this.reads.queryJson(HOURLY, hoursOfRangeParameters(sunSourceId, range));
  }

  /** As `hourly`, streamed. */
  streamHourly(sunSourceId: string, range: TimeRange): Promise<JsonArrayStream> {
    return this.reads.streamJson(HOURLY, hoursOfRangeParameters(sunSourceId, range));
  }

  /** The UTC days of the range as DailySummaryDto[], encoded. */
  dailySummaries(sunSourceId: string, range: TimeRange): Promise<EncodedJson> {
    return this.reads.queryJson(DAILY_SUMMARIES, hoursOfRangeParameters(sunSourceId, range));
  }

  daily(sunSourceId: string, range: TimeRange): Promise<DailyRow[]> {
    return this.reads.query(DAILY, hoursOfRangeParameters(sunSourceId, range));
  }

  /** Every UTC day the source's telemetry measures a production on, oldest first. */
  productionByDay(sunSourceId: string): Promise<MeasuredDayProduction[]> {
    return this.dataSource.query(PRODUCTION_BY_DAY, [sunSourceId]);
  }

  async summary(sunSourceId: string, range: TimeRange): Promise<RangeSummaryRow> {
    const [row]: RangeSummaryRow[] = await this.reads.query(
      SUMMARY,
      hoursOfRangeParameters(sunSourceId, range),
    );
    return row;
  }

  /** How often each operating mode was reported in the range (rows without a mode left out). */
  operatingModes(sunSourceId: string, range: TimeRange): Promise<Array<{ mode: string; count: number }>> {
    return this.reads.query(
      `SELECT operating_mode AS "mode", count(*)::int AS "count"
         FROM telemetry
        WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3 AND operating_mode IS NOT NULL
        GROUP BY 1 ORDER BY 2 DESC, 1`,
      [sunSourceId, range.start, range.end],
    );
  }

  rawPayloads(sunSourceId: string, limit: number): Promise<RawPayloadRow[]> {
    return this.dataSource.query(
      `SELECT ts AS "ts", received_at AS "receivedAt", raw AS "payload"
         FROM telemetry WHERE sun_source_id = $1 ORDER BY ts DESC LIMIT $2`,
      [sunSourceId, limit],
    );
  }

  async count(sunSourceId: string): Promise<number> {
    const [row]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::float8 AS "count" FROM telemetry WHERE sun_source_id = $1`,
      [sunSourceId],
    );
    return row.count;
  }

  /** Bytes of the rows as stored (tuple sizes, before index and page overhead). */
  async sizeBytes(sunSourceId: string): Promise<number> {
    const [row]: Array<{ size: number }> = await this.dataSource.query(
      `SELECT coalesce(sum(pg_column_size(t.*)), 0)::float8 AS "size" FROM telemetry t WHERE t.sun_source_id = $1`,
      [sunSourceId],
    );
    return row.size;
  }

  activityOfOwned(ownerId: string): Promise<SourceActivity[]> {
    return this.dataSource.query(
      `SELECT s.id AS "sunSourceId", a.count::float8 AS "messageCount", a.last AS "lastMessageTime"
         FROM sun_sources s
         CROSS JOIN LATERAL (SELECT count(*) AS count, max(t.ts) AS last FROM telemetry t WHERE t.sun_source_id = s.id) a
        WHERE s.user_id = $1
        ORDER BY s.created_at, s.id`,
      [ownerId],
    );
  }

  /** The rollup goes with the rows, in the same transaction. */
  deleteAll(sunSourceId: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(LONG_STATEMENT_TIMEOUT);
      const [, affected]: [unknown, number] = await manager.query(
        `DELETE FROM telemetry WHERE sun_source_id = $1`,
        [sunSourceId],
      );
      // A recount rather than a plain DELETE: a batch of this source committing meanwhile keeps
      // both its rows and their hours.
      await manager.query(`SELECT rebuild_telemetry_hourly($1, '-infinity', 'infinity')`, [sunSourceId]);
      return affected;
    });
  }
}
