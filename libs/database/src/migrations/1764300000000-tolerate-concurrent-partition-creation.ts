import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ensure_telemetry_partition` re-checked `to_regclass` after taking its advisory lock, but a
 * function runs inside one statement whose catalog snapshot can predate another session's
 * commit: both could decide to create the same partition. Whoever loses now takes the
 * `duplicate_table` error as the success it is.
 */
export class TolerateConcurrentPartitionCreation1764300000000 implements MigrationInterface {
  name = 'TolerateConcurrentPartitionCreation1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ensure_telemetry_partition(month date) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        first_day date := date_trunc('month', month)::date;
        partition_name text := format('telemetry_p%s', to_char(first_day, 'YYYYMM'));
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
      EXCEPTION
        WHEN duplicate_table THEN NULL;
      END
      $$`);
  }

  async down(): Promise<void> {
    // The previous body had the race; there is nothing worth restoring.
  }
}
