import { MigrationInterface, QueryRunner } from 'typeorm';

/** What an owner shares publicly, per source; no row means nothing shared. */
export class CreateSourceSharing1764500000000 implements MigrationInterface {
  name = 'CreateSourceSharing1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE source_sharing (
        sun_source_id uuid PRIMARY KEY REFERENCES sun_sources (id) ON DELETE CASCADE,
        is_enabled boolean NOT NULL DEFAULT false,
        share_monitor boolean NOT NULL DEFAULT false,
        share_weather boolean NOT NULL DEFAULT false,
        share_forecast boolean NOT NULL DEFAULT false,
        share_returns boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE source_sharing`);
  }
}
