import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Telemetry: one row per source and device timestamp, range-partitioned by month. The primary key
 * serves "latest", "history" and every range query of one source; partitions are created ahead by
 * the apps and on demand through `ensure_telemetry_partition`.
 */
export class CreateTelemetry1764200000000 implements MigrationInterface {
  name = 'CreateTelemetry1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE telemetry (
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        ts timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        state_of_charge double precision,
        state_of_health double precision,
        battery_voltage double precision,
        battery_current double precision,
        battery_temperature double precision,
        battery_capacity double precision,
        remaining_capacity double precision,
        solar_voltage double precision,
        solar_current double precision,
        solar_power double precision,
        output_voltage double precision,
        output_current double precision,
        output_frequency double precision,
        load_power double precision,
        load_percentage double precision,
        apparent_power double precision,
        grid_voltage double precision,
        grid_current double precision,
        grid_frequency double precision,
        grid_power double precision,
        total_energy_produced double precision,
        total_energy_consumed double precision,
        daily_energy_produced double precision,
        daily_energy_consumed double precision,
        operating_mode text,
        device_status text,
        fault_codes text[],
        warning_codes text[],
        raw jsonb NOT NULL,
        PRIMARY KEY (sun_source_id, ts)
      ) PARTITION BY RANGE (ts)`);
    // "Messages stored in the last hour" (admin statistics) reads arrival times.
    await queryRunner.query(`CREATE INDEX telemetry_received_at_idx ON telemetry USING brin (received_at)`);

    // Creates the partition holding `month` if it is missing. Concurrent callers (api and
    // ingestor instances) serialize on an advisory lock, so each partition is created once.
    await queryRunner.query(`
      CREATE FUNCTION ensure_telemetry_partition(month date) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        first_day date := date_trunc('month', month)::date;
        partition_name text := format('telemetry_p%s', to_char(first_day, 'YYYYMM'));
      BEGIN
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext(partition_name));
        IF to_regclass(partition_name) IS NULL THEN
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF telemetry FOR VALUES FROM (%L) TO (%L)',
            partition_name,
            first_day::timestamp AT TIME ZONE 'UTC',
            (first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        END IF;
      END
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION ensure_telemetry_partition(date)`);
    await queryRunner.query(`DROP TABLE telemetry`);
  }
}
