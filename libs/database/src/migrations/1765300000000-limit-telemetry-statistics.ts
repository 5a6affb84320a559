import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The telemetry columns queries select rows by: the key, the arrival time (rows counted by it),
 * and the readings tested for NULL (the energy counters, solar and load power, lifetime
 * production, the operating mode).
 */
const FILTERED_COLUMNS = [
  'sun_source_id',
  'ts',
  'received_at',
  'daily_energy_produced',
  'daily_energy_consumed',
  'solar_power',
  'load_power',
  'total_energy_produced',
  'operating_mode',
];

/**
 * A statement setting the statistics target of every column of `table` but `kept` to `target`
 * (0: none; -1: the server's default). On a partitioned table it reaches the existing partitions.
 */
export const setStatisticsOfOtherColumns = (table: string, kept: string[], target: number) => `
  DO $$
  BEGIN
    EXECUTE (
      SELECT format('ALTER TABLE %I ', '${table}')
             || string_agg(format('ALTER COLUMN %I SET STATISTICS ${target}', attname), ', ' ORDER BY attnum)
        FROM pg_attribute
       WHERE attrelid = '${table}'::regclass AND attnum > 0 AND NOT attisdropped
         AND attname <> ALL (ARRAY[${kept.map((column) => `'${column}'`).join(', ')}]));
  END
  $$`;

/**
 * Autovacuum analyzes the month's telemetry partition while it fills, on the cores that take the
 * writes, and most of an ANALYZE goes to statistics no plan uses (half of it to `raw` alone). The
 * other columns get none. PostgreSQL sets a partitioned table's per-column targets on its
 * partitions at the ALTER, but does not copy them to a partition created later, so
 * `ensure_telemetry_partition` now copies them.
 */
export class LimitTelemetryStatistics1765300000000 implements MigrationInterface {
  name = 'LimitTelemetryStatistics1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(setStatisticsOfOtherColumns('telemetry', FILTERED_COLUMNS, 0));
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
    await queryRunner.query(setStatisticsOfOtherColumns('telemetry', FILTERED_COLUMNS, -1));
  }
}
