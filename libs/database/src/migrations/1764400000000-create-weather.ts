import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Weather forecasts per source: daily records and the hourly series the forecasts use. One row
 * per source and day (or hour), so a refresh upserts in place; both hang off `sun_sources` with
 * ON DELETE CASCADE. Rows of past days are kept: they are the weather history a model trains on.
 */
export class CreateWeather1764400000000 implements MigrationInterface {
  name = 'CreateWeather1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE weather_daily (
        id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        -- The source's local calendar day, as Open-Meteo names it with timezone=auto.
        date date NOT NULL,
        temperature_max double precision,
        temperature_min double precision,
        shortwave_radiation_sum double precision,
        weather_code smallint,
        uv_index_max double precision,
        precipitation_sum double precision,
        -- Local wall time at the source, without a zone, exactly as the provider gives it.
        sunrise timestamp,
        sunset timestamp,
        -- The fixed offset the provider applied to this fetch: "today" at the source is
        -- (now at UTC + utc_offset_seconds)::date.
        utc_offset_seconds integer NOT NULL,
        timezone text NOT NULL,
        fetched_at timestamptz NOT NULL,
        PRIMARY KEY (sun_source_id, date)
      )`);

    await queryRunner.query(`
      CREATE TABLE weather_hourly (
        sun_source_id uuid NOT NULL REFERENCES sun_sources (id) ON DELETE CASCADE,
        ts timestamptz NOT NULL,
        temperature double precision,
        shortwave_radiation double precision,
        cloud_cover double precision,
        weather_code smallint,
        uv_index double precision,
        precipitation double precision,
        fetched_at timestamptz NOT NULL,
        PRIMARY KEY (sun_source_id, ts)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE weather_hourly`);
    await queryRunner.query(`DROP TABLE weather_daily`);
  }
}
