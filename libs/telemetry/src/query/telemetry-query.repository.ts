import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MetricsRow, metricsColumns } from './sun-source-metrics';

export interface TimeRange {
  start: Date;
  end: Date;
}

/** One UTC hour of a source (SunSourceHistoricalDataDto, plus what reports need). */
export interface HourlyRow {
  hour: Date;
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

// PostgreSQL returns bigint and numeric aggregates as strings; every figure here fits a double.
const num = (expression: string, name: string) => `(${expression})::float8 AS "${name}"`;
const int = (expression: string, name: string) => `(${expression})::int AS "${name}"`;

/**
 * Every read of stored telemetry. Callers pass a source id they have already checked belongs to
 * the user (the sources' service does that); multi-source reads take the owner id and join.
 * Time ranges include both ends; buckets are UTC.
 */
@Injectable()
export class TelemetryQueryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async latest(sunSourceId: string): Promise<MetricsRow | undefined> {
    const rows: MetricsRow[] = await this.dataSource.query(
      `SELECT ${metricsColumns('t')} FROM telemetry t WHERE t.sun_source_id = $1 ORDER BY t.ts DESC LIMIT 1`,
      [sunSourceId],
    );
    return rows[0];
  }

  /** Newest first, at most `limit`. */
  history(sunSourceId: string, range: TimeRange, limit: number): Promise<MetricsRow[]> {
    return this.dataSource.query(
      `SELECT ${metricsColumns('t')} FROM telemetry t
        WHERE t.sun_source_id = $1 AND t.ts >= $2 AND t.ts <= $3
        ORDER BY t.ts DESC LIMIT $4`,
      [sunSourceId, range.start, range.end, limit],
    );
  }

  /** The latest point of each of the owner's sources among `ids` (all of them when `ids` is absent). */
  latestOfOwned(ownerId: string, ids?: string[]): Promise<MetricsRow[]> {
    return this.dataSource.query(
      `SELECT l.* FROM sun_sources s
         CROSS JOIN LATERAL (
           SELECT ${metricsColumns('t')} FROM telemetry t
            WHERE t.sun_source_id = s.id ORDER BY t.ts DESC LIMIT 1) l
        WHERE s.user_id = $1 AND ($2::uuid[] IS NULL OR s.id = ANY($2::uuid[]))
        ORDER BY s.created_at, s.id`,
      [ownerId, ids ?? null],
    );
  }

  hourly(sunSourceId: string, range: TimeRange): Promise<HourlyRow[]> {
    return this.dataSource.query(
      `SELECT date_trunc('hour', ts, 'UTC') AS "hour",
              ${num('avg(battery_voltage)', 'averageBatteryVoltage')},
              ${num('avg(state_of_charge)', 'averageStateOfCharge')},
              ${num('avg(solar_power)', 'averageSolarPower')},
              ${num('avg(load_percentage)', 'averageLoadPercentage')},
              ${num('avg(load_power)', 'averageLoadPower')},
              ${num('max(solar_power)', 'maxSolarPower')},
              ${num('max(load_power)', 'maxLoadPower')},
              ${num('min(state_of_charge)', 'minStateOfCharge')},
              ${int('count(*)', 'sampleCount')}
         FROM telemetry
        WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3
        GROUP BY 1 ORDER BY 1`,
      [sunSourceId, range.start, range.end],
    );
  }

  daily(sunSourceId: string, range: TimeRange): Promise<DailyRow[]> {
    return this.dataSource.query(
      `SELECT date_trunc('day', ts, 'UTC') AS "day",
              ${int('count(*)', 'sampleCount')},
              ${num('avg(solar_power)', 'solarPowerAvg')}, ${int('count(solar_power)', 'solarPowerCount')},
              ${num('max(solar_power)', 'solarPowerMax')},
              ${num('avg(load_power)', 'loadPowerAvg')}, ${int('count(load_power)', 'loadPowerCount')},
              ${num('max(load_power)', 'loadPowerMax')},
              ${num('avg(state_of_charge)', 'socAvg')}, ${int('count(state_of_charge)', 'socCount')},
              ${num('min(state_of_charge)', 'socMin')}, ${num('max(state_of_charge)', 'socMax')},
              ${num('avg(battery_voltage)', 'voltageAvg')}, ${int('count(battery_voltage)', 'voltageCount')},
              ${num('avg(grid_voltage)', 'gridVoltageAvg')}, ${int('count(grid_voltage)', 'gridVoltageCount')},
              ${num('avg(grid_frequency)', 'gridFreqAvg')}, ${int('count(grid_frequency)', 'gridFreqCount')},
              ${num('max(daily_energy_produced)', 'energyProduced')},
              ${num('max(daily_energy_consumed)', 'energyConsumed')}
         FROM telemetry
        WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3
        GROUP BY 1 ORDER BY 1`,
      [sunSourceId, range.start, range.end],
    );
  }

  async summary(sunSourceId: string, range: TimeRange): Promise<RangeSummaryRow> {
    const [row]: RangeSummaryRow[] = await this.dataSource.query(
      `SELECT ${int('count(*)', 'dataPoints')},
              ${num('avg(solar_power)', 'avgSolarPower')}, ${num('max(solar_power)', 'maxSolarPower')},
              ${num('avg(state_of_charge)', 'avgStateOfCharge')}, ${num('min(state_of_charge)', 'minStateOfCharge')},
              ${num('avg(battery_voltage)', 'avgBatteryVoltage')},
              ${num('avg(load_power)', 'avgLoadPower')}, ${num('max(load_power)', 'maxLoadPower')}
         FROM telemetry
        WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3`,
      [sunSourceId, range.start, range.end],
    );
    return row;
  }

  /** How often each operating mode was reported in the range (rows without a mode left out). */
  operatingModes(sunSourceId: string, range: TimeRange): Promise<Array<{ mode: string; count: number }>> {
    return this.dataSource.query(
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

  async deleteAll(sunSourceId: string): Promise<number> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM telemetry WHERE sun_source_id = $1`,
      [sunSourceId],
    );
    return affected;
  }
}
