import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The array's tilt and azimuth as the owner gives them (optional, both or neither): the forecast
 * uses them instead of an orientation inferred from the history.
 */
export class AddArrayOrientation1765500000000 implements MigrationInterface {
  name = 'AddArrayOrientation1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sun_sources
         ADD COLUMN array_tilt double precision,
         ADD COLUMN array_azimuth double precision,
         ADD CONSTRAINT sun_sources_array_orientation_check CHECK (
           (array_tilt IS NULL) = (array_azimuth IS NULL)
           AND (array_tilt IS NULL OR (array_tilt BETWEEN 0 AND 90 AND array_azimuth BETWEEN 0 AND 360))
         )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sun_sources
         DROP CONSTRAINT sun_sources_array_orientation_check,
         DROP COLUMN array_tilt,
         DROP COLUMN array_azimuth`,
    );
  }
}
