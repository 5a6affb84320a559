import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `day_ahead_forecasts`: per source and UTC day D, the day-ahead forecast of D (the last one
 * issued during D − 1), kept to be scored once D is measured (docs/forecast-accuracy.md). Beside
 * the served forecast's 24 hours it keeps what the score compares it with, as known when it was
 * issued: the physics-only baseline's forecast, the array's clear-sky power of D − 1 and D (for
 * smart persistence) and which hours of D are daytime.
 */
export class CreateDayAheadForecasts1764900000000 implements MigrationInterface {
  name = 'CreateDayAheadForecasts1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE day_ahead_forecasts (
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        date date NOT NULL,
        issued_at timestamptz NOT NULL,
        job_id text NOT NULL,
        -- 'learned' (a trained model), 'baseline' or 'physics' (the untrained physics-only forecast).
        model text NOT NULL,
        model_trained_at timestamptz,
        -- 24 objects, one per UTC hour of the day: the forecast, the baseline's, clear sky, daytime.
        hours jsonb NOT NULL,
        -- 24 numbers: the array's clear-sky power (W) over the hours of the day before.
        previous_day_clear_sky jsonb NOT NULL,
        PRIMARY KEY (sun_source_id, date)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE day_ahead_forecasts`);
  }
}
