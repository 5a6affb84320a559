import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the scheduled job last failed to train a source's model again (no data left, say): such a
 * model waits 30 days before the next attempt, so a few that always fail cannot take every run's
 * trainings from the others. A training that stores a model clears it.
 */
export class AddModelRetrainingFailure1765600000000 implements MigrationInterface {
  name = 'AddModelRetrainingFailure1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE forecast_models ADD COLUMN retraining_failed_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE forecast_models DROP COLUMN retraining_failed_at`);
  }
}
