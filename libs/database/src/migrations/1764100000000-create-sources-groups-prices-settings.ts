import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Power Groups, Sun Sources, kWh prices and user settings. Everything a user owns hangs off
 * `users` with ON DELETE CASCADE, and everything a source owns off `sun_sources`, so deleting an
 * account or a source removes all of it in one statement, including tables added later.
 */
export class CreateSourcesGroupsPricesSettings1764100000000 implements MigrationInterface {
  name = 'CreateSourcesGroupsPricesSettings1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE power_groups (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        description varchar(500),
        logo_url varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- Target of sun_sources' (power_group_id, user_id) key: a source joins only its owner's groups.
        CONSTRAINT power_groups_id_user_key UNIQUE (id, user_id)
      )`);
    await queryRunner.query(`CREATE INDEX power_groups_user_idx ON power_groups (user_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE sun_sources (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        power_group_id uuid,
        name varchar(200) NOT NULL,
        description varchar(2000),
        icon_url varchar(500),
        connection_type text NOT NULL CHECK (connection_type IN ('MQTT', 'Webhook')),
        latitude double precision CHECK (latitude BETWEEN -90 AND 90),
        longitude double precision CHECK (longitude BETWEEN -180 AND 180),
        is_active boolean NOT NULL DEFAULT true,
        installed_capacity_watts double precision CHECK (installed_capacity_watts >= 0),
        currency char(3) NOT NULL DEFAULT 'EUR',
        system_cost numeric(14, 2) CHECK (system_cost >= 0),
        maintenance_cost_per_year numeric(14, 2) CHECK (maintenance_cost_per_year >= 0),
        installation_date timestamptz,
        -- Device credentials, encrypted with SECRETS_KEY (AES-256-GCM); the owner can read them back.
        mqtt_api_key_encrypted text,
        webhook_secret_encrypted text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sun_sources_power_group_fkey FOREIGN KEY (power_group_id, user_id)
          REFERENCES power_groups (id, user_id) ON DELETE SET NULL (power_group_id),
        CONSTRAINT sun_sources_credentials CHECK (
          (connection_type = 'MQTT' AND mqtt_api_key_encrypted IS NOT NULL AND webhook_secret_encrypted IS NULL) OR
          (connection_type = 'Webhook' AND webhook_secret_encrypted IS NOT NULL AND mqtt_api_key_encrypted IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX sun_sources_user_idx ON sun_sources (user_id, created_at)`);
    await queryRunner.query(`CREATE INDEX sun_sources_power_group_idx ON sun_sources (power_group_id)`);

    await queryRunner.query(`
      CREATE TABLE kwh_prices (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        price_per_kwh numeric(12, 6) NOT NULL CHECK (price_per_kwh > 0),
        effective_from timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX kwh_prices_source_effective_idx ON kwh_prices (sun_source_id, effective_from)`,
    );

    await queryRunner.query(`
      CREATE TABLE user_settings (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        setting_type smallint NOT NULL CHECK (setting_type IN (0, 1, 2)),
        value text NOT NULL CHECK (value IN ('0', '1')),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, setting_type)
      )`);
    // The scheduler asks "who turned this setting on?" every six hours.
    await queryRunner.query(
      `CREATE INDEX user_settings_enabled_idx ON user_settings (setting_type) WHERE value = '1'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_settings`);
    await queryRunner.query(`DROP TABLE kwh_prices`);
    await queryRunner.query(`DROP TABLE sun_sources`);
    await queryRunner.query(`DROP TABLE power_groups`);
  }
}
