import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsers1764000000000 implements MigrationInterface {
  name = 'CreateUsers1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        password_hash text NOT NULL,
        first_name text,
        last_name text,
        roles text[] NOT NULL DEFAULT ARRAY['User']::text[],
        email_verified boolean NOT NULL DEFAULT false,
        verification_code_hash text,
        verification_code_expires_at timestamptz,
        failed_attempts integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_email_lowercase CHECK (email = lower(email)),
        CONSTRAINT users_roles_known CHECK (roles <@ ARRAY['User', 'Admin', 'Overseer']::text[])
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await queryRunner.query(`CREATE INDEX users_created_at_idx ON users (created_at DESC, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE users`);
  }
}
