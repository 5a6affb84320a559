import { MigrationInterface, QueryRunner } from 'typeorm';

/** Weather forecasts per source: daily records and the hourly series the forecasts use. */
export class CreateWeather1764400000000 implements MigrationInterface {
  name = 'CreateWeather1764400000000';

  async up(_queryRunner: QueryRunner): Promise<void> {}

  async down(_queryRunner: QueryRunner): Promise<void> {}
}
