import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The place a stored forecast day was fetched for. A source whose coordinates change must not go
 * on showing the old place's forecast: stored days for other coordinates are not served, and
 * the next read fetches the new place's. Days stored before this column existed keep NULL and
 * are served as they were.
 */
export class AddWeatherCoordinates1764850000000 implements MigrationInterface {
  name = 'AddWeatherCoordinates1764850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE weather_daily ADD COLUMN latitude double precision, ADD COLUMN longitude double precision`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE weather_daily DROP COLUMN latitude, DROP COLUMN longitude`);
  }
}
