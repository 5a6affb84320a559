import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trained models and stored forecasts, per source. One model per source, replaced by each
 * training; forecasts are kept, the latest by creation time is the one shown. Both hang off `sun_sources` with ON DELETE CASCADE.
 */
export class CreateForecasts1764600000000 implements MigrationInterface {
  name = 'CreateForecasts1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE forecast_models (
        sun_source_id uuid PRIMARY KEY REFERENCES sun_sources (id) ON DELETE CASCADE,
        trained_at timestamptz NOT NULL,
        data_points_used integer NOT NULL,
        -- mae, rmse, r2 and the per-target solar_* and load_* figures.
        metrics jsonb NOT NULL,
        -- The whole serialized model (TrainedModel of libs/forecast), opaque to SQL.
        model jsonb NOT NULL
      )`);

    await queryRunner.query(`
      CREATE TABLE predictions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        job_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- The 168 hourly points and the 7 daily ones, exactly as the api returns them.
        predictions jsonb NOT NULL,
        daily jsonb NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX predictions_source_created_idx ON predictions (sun_source_id, created_at DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE predictions`);
    await queryRunner.query(`DROP TABLE forecast_models`);
  }
}
