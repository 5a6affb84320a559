import { MigrationInterface, QueryRunner } from 'typeorm';

/** Raw rows to one `telemetry_hourly` row, in its column order (frozen here: this is a migration). */
const HOURLY_AGGREGATES = `
  sun_source_id, date_trunc('hour', ts, 'UTC'), count(*),
  coalesce(sum(battery_voltage), 0), count(battery_voltage),
  coalesce(sum(state_of_charge), 0), count(state_of_charge),
  coalesce(sum(solar_power), 0), count(solar_power),
  coalesce(sum(load_percentage), 0), count(load_percentage),
  coalesce(sum(load_power), 0), count(load_power),
  coalesce(sum(grid_voltage), 0), count(grid_voltage),
  coalesce(sum(grid_frequency), 0), count(grid_frequency),
  max(solar_power), max(load_power), min(state_of_charge), max(state_of_charge),
  max(daily_energy_produced), max(daily_energy_consumed)`;

const OVERWRITE = [
  'sample_count',
  ...[
    'battery_voltage',
    'state_of_charge',
    'solar_power',
    'load_percentage',
    'load_power',
    'grid_voltage',
    'grid_frequency',
  ].flatMap((field) => [`${field}_sum`, `${field}_count`]),
  'max_solar_power',
  'max_load_power',
  'min_state_of_charge',
  'max_state_of_charge',
  'max_daily_energy_produced',
  'max_daily_energy_consumed',
]
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

/**
 * `telemetry_hourly`: per source and UTC hour, what the hourly, daily and summary queries need
 * (sums and non-null counts of the averaged fields, extremes, the day's energy counters), so a
 * 400-day summary reads 9,600 rows instead of 115,000. Ingestion adds each batch to it in the
 * INSERT that stores the batch; whatever else changes raw rows (downsampling, cleanup) calls
 * `rebuild_telemetry_hourly` in the transaction of its change. Averages are sum / count, so
 * hours and partial hours combine exactly (up to floating-point rounding).
 *
 * Upgrading: rows that processes of the previous version store after the backfill read their
 * partition are not counted. Stop ingestion meanwhile, or once every process runs this version,
 * recount the window: `SELECT rebuild_telemetry_hourly(id, <upgrade start>, now()) FROM sun_sources`.
 */
export class CreateTelemetryHourly1764700000000 implements MigrationInterface {
  name = 'CreateTelemetryHourly1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The current hour's row of a source is updated by every batch holding one of its points (360
    // times an hour at 10 s): room left on each page keeps those updates HOT (no new index entry,
    // no row moved away). At 100 only a third were, and the table grew eight times larger, with
    // 1,000 sources writing every 10 s.
    await queryRunner.query(`
      CREATE TABLE telemetry_hourly (
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        sample_count integer NOT NULL,
        battery_voltage_sum double precision NOT NULL,
        battery_voltage_count integer NOT NULL,
        state_of_charge_sum double precision NOT NULL,
        state_of_charge_count integer NOT NULL,
        solar_power_sum double precision NOT NULL,
        solar_power_count integer NOT NULL,
        load_percentage_sum double precision NOT NULL,
        load_percentage_count integer NOT NULL,
        load_power_sum double precision NOT NULL,
        load_power_count integer NOT NULL,
        grid_voltage_sum double precision NOT NULL,
        grid_voltage_count integer NOT NULL,
        grid_frequency_sum double precision NOT NULL,
        grid_frequency_count integer NOT NULL,
        max_solar_power double precision,
        max_load_power double precision,
        min_state_of_charge double precision,
        max_state_of_charge double precision,
        max_daily_energy_produced double precision,
        max_daily_energy_consumed double precision,
        PRIMARY KEY (sun_source_id, hour)
      ) WITH (fillfactor = 85)`);

    // Deletes and recounts from the raw rows the rollup of every hour that [from_ts, to_ts)
    // touches. The rows are locked first, in hour order as ingestion locks them: a batch that
    // already added to one of these hours commits before the recount reads the raw rows (each
    // statement of a plpgsql function takes a new snapshot), and a later batch adds after it.
    await queryRunner.query(`
      CREATE FUNCTION rebuild_telemetry_hourly(source uuid, from_ts timestamptz, to_ts timestamptz)
      RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        first_hour timestamptz := date_trunc('hour', from_ts, 'UTC');
        after_last_hour timestamptz := date_trunc('hour', to_ts - interval '1 microsecond', 'UTC') + interval '1 hour';
      BEGIN
        IF from_ts >= to_ts THEN
          RETURN;
        END IF;
        PERFORM 1 FROM telemetry_hourly
          WHERE sun_source_id = source AND hour >= first_hour AND hour < after_last_hour
          ORDER BY hour FOR UPDATE;
        DELETE FROM telemetry_hourly
          WHERE sun_source_id = source AND hour >= first_hour AND hour < after_last_hour;
        INSERT INTO telemetry_hourly
        SELECT ${HOURLY_AGGREGATES}
          FROM telemetry
         WHERE sun_source_id = source AND ts >= first_hour AND ts < after_last_hour
         GROUP BY 1, 2 ORDER BY 2
        -- Only when a batch created one of these hours after the DELETE: our count includes it.
        ON CONFLICT (sun_source_id, hour) DO UPDATE SET ${OVERWRITE};
      END
      $$`);

    // Existing telemetry, one partition (month, so whole hours) at a time: each hash aggregate
    // stays small enough for memory, where one over the whole table would spill to disk. Sorted,
    // so a source's month of hours shares a few pages (ingestion interleaves sources hour by hour).
    await queryRunner.query(`SET LOCAL work_mem = '64MB'`);
    const partitions: Array<{ name: string }> = await queryRunner.query(
      `SELECT inhrelid::regclass::text AS name FROM pg_inherits
        WHERE inhparent = 'telemetry'::regclass ORDER BY 1`,
    );
    for (const { name } of partitions) {
      await queryRunner.query(
        `INSERT INTO telemetry_hourly SELECT ${HOURLY_AGGREGATES} FROM ${name} GROUP BY 1, 2 ORDER BY 1, 2`,
      );
    }
    await queryRunner.query(`ANALYZE telemetry_hourly`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION rebuild_telemetry_hourly(uuid, timestamptz, timestamptz)`);
    await queryRunner.query(`DROP TABLE telemetry_hourly`);
  }
}
