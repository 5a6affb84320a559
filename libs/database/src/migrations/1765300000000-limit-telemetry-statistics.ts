import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The telemetry columns no query selects rows by: the payload, the code arrays and the readings
 * that are only ever read as values (queries find rows by source and time, count rows by arrival
 * time, and test the energy counters, the solar and load power, the lifetime production and the
 * operating mode for NULL).
 */
const UNFILTERED_COLUMNS = [
  'state_of_charge',
  'state_of_health',
  'battery_voltage',
  'battery_current',
  'battery_temperature',
  'battery_capacity',
  'remaining_capacity',
  'solar_voltage',
  'solar_current',
  'output_voltage',
  'output_current',
  'output_frequency',
  'load_percentage',
  'apparent_power',
  'grid_voltage',
  'grid_current',
  'grid_frequency',
  'grid_power',
  'total_energy_consumed',
  'device_status',
  'fault_codes',
  'warning_codes',
  'raw',
];

const alterEach = (target: number) =>
  UNFILTERED_COLUMNS.map((column) => `ALTER COLUMN ${column} SET STATISTICS ${target}`).join(', ');

/**
 * Autovacuum analyzes the month's telemetry partition while it fills, on the cores that take the
 * writes, and most of an ANALYZE goes to statistics no plan uses (half of it to `raw` alone). The
 * unfiltered columns get none. PostgreSQL sets a partitioned table's per-column targets on its
 * partitions at the ALTER, but does not copy them to a partition created later, so
 * `ensure_telemetry_partition` now copies them.
 */
export class LimitTelemetryStatistics1765300000000 implements MigrationInterface {
  name = 'LimitTelemetryStatistics1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Recurses into the existing partitions.
    await queryRunner.query(`ALTER TABLE telemetry ${alterEach(0)}`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ensure_telemetry_partition(month date) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        first_day date := date_trunc('month', month)::date;
        partition_name text := format('telemetry_p%s', to_char(first_day, 'YYYYMM'));
        statistics_targets text;
      BEGIN
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext(partition_name));
        EXECUTE format(
          'CREATE TABLE IF NOT EXISTS %I PARTITION OF telemetry FOR VALUES FROM (%L) TO (%L)',
          partition_name,
          first_day::timestamp AT TIME ZONE 'UTC',
          (first_day + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        SELECT string_agg(format('ALTER COLUMN %I SET STATISTICS %s', attname, attstattarget), ', ')
          INTO statistics_targets
          FROM pg_attribute
         WHERE attrelid = 'telemetry'::regclass AND attnum > 0 AND NOT attisdropped AND attstattarget >= 0;
        IF statistics_targets IS NOT NULL THEN
          EXECUTE format('ALTER TABLE %I %s', partition_name, statistics_targets);
        END IF;
      EXCEPTION
        WHEN duplicate_table THEN NULL;
      END
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The copy of the targets is harmless once every column is back to the default.
    await queryRunner.query(`ALTER TABLE telemetry ${alterEach(-1)}`);
  }
}
