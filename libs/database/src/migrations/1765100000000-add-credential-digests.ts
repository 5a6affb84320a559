import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Beside each sealed device credential, a digest that checks it without a decryption
 * (`SecretBox.digest`, keyed by SECRETS_KEY). Written with every new or regenerated credential;
 * credentials set before are checked by opening them, once per process, until they are renewed.
 */
export class AddCredentialDigests1765100000000 implements MigrationInterface {
  name = 'AddCredentialDigests1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sun_sources ADD COLUMN mqtt_api_key_digest bytea, ADD COLUMN webhook_secret_digest bytea`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sun_sources DROP COLUMN mqtt_api_key_digest, DROP COLUMN webhook_secret_digest`,
    );
  }
}
