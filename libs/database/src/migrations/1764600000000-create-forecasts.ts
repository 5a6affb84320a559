import { MigrationInterface, QueryRunner } from 'typeorm';

/** Trained models and stored forecasts, per source. */
export class CreateForecasts1764600000000 implements MigrationInterface {
  name = 'CreateForecasts1764600000000';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}
