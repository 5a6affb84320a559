import { MigrationInterface, QueryRunner } from 'typeorm';
import { setStatisticsOfOtherColumns } from './1765300000000-limit-telemetry-statistics';

/**
 * The hourly rollup's columns that queries select rows by: the key, and the daily energy
 * counters' first and last readings, which the energy queries test for NULL.
 */
const FILTERED_COLUMNS = [
  'sun_source_id',
  'hour',
  'first_daily_energy_produced',
  'first_daily_energy_consumed',
  'last_daily_energy_produced',
  'last_daily_energy_consumed',
];

/**
 * Every batch of telemetry updates its hours in the rollup, so autovacuum vacuums and analyzes it
 * while ingestion runs, on the same cores. Its 44 columns made an ANALYZE of 400,000 hours take
 * ~0.75 s, nearly all of it statistics no plan reads: the other columns get none.
 */
export class LimitTelemetryHourlyStatistics1765400000000 implements MigrationInterface {
  name = 'LimitTelemetryHourlyStatistics1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(setStatisticsOfOtherColumns('telemetry_hourly', FILTERED_COLUMNS, 0));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(setStatisticsOfOtherColumns('telemetry_hourly', FILTERED_COLUMNS, -1));
  }
}
