import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `session_generation`: a session carries the generation it was started under and is refused
 * once the account's generation has moved on, so every session of an account can be ended at
 * once. The partial index serves the removal of old unverified accounts.
 */
export class AddUserSessionGeneration1764810000000 implements MigrationInterface {
  name = 'AddUserSessionGeneration1764810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN session_generation integer NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE INDEX users_unverified_created_at_idx ON users (created_at) WHERE NOT email_verified`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX users_unverified_created_at_idx`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN session_generation`);
  }
}
