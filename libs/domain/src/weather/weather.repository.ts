import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Coordinates } from './open-meteo-format';
import { WeatherDay, WeatherForecast, WeatherHour } from './weather-forecast';

/** A stored day, with the identity the api shows. */
export interface StoredWeatherDay extends WeatherDay {
  id: string;
  sunSourceId: string;
}

interface HourRow {
  ts: Date;
  temperature: number | null;
  shortwave_radiation: number | null;
  cloud_cover: number | null;
  weather_code: number | null;
  uv_index: number | null;
  precipitation: number | null;
}

/**
 * `weather_daily` and `weather_hourly`. Plain SQL: the upsert is one `INSERT ... SELECT FROM
 * unnest(...)` per table, and the local dates and wall times are formatted by PostgreSQL so no
 * driver-side time zone conversion can shift them.
 */
@Injectable()
export class WeatherRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Upserts every day and hour of one answer in one transaction: a failure leaves what was
   * stored before untouched. Rows the answer does not mention (past days) are kept. The days
   * remember `place`, the coordinates they were fetched for.
   */
  async save(
    sunSourceId: string,
    forecast: WeatherForecast,
    place: Coordinates,
    fetchedAt: Date,
  ): Promise<void> {
    const { days, hours } = forecast;
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO weather_daily (sun_source_id, date, temperature_max, temperature_min,
                shortwave_radiation_sum, weather_code, uv_index_max, precipitation_sum, sunrise, sunset,
                utc_offset_seconds, timezone, fetched_at, latitude, longitude)
         SELECT $1::uuid, d.date, d.temperature_max, d.temperature_min, d.shortwave_radiation_sum,
                d.weather_code, d.uv_index_max, d.precipitation_sum, d.sunrise, d.sunset, $11, $12, $13,
                $14, $15
           FROM unnest($2::date[], $3::float8[], $4::float8[], $5::float8[], $6::smallint[], $7::float8[],
                       $8::float8[], $9::timestamp[], $10::timestamp[])
                AS d (date, temperature_max, temperature_min, shortwave_radiation_sum, weather_code,
                      uv_index_max, precipitation_sum, sunrise, sunset)
         ON CONFLICT (sun_source_id, date) DO UPDATE SET
                temperature_max = EXCLUDED.temperature_max,
                temperature_min = EXCLUDED.temperature_min,
                shortwave_radiation_sum = EXCLUDED.shortwave_radiation_sum,
                weather_code = EXCLUDED.weather_code,
                uv_index_max = EXCLUDED.uv_index_max,
                precipitation_sum = EXCLUDED.precipitation_sum,
                sunrise = EXCLUDED.sunrise,
                sunset = EXCLUDED.sunset,
                utc_offset_seconds = EXCLUDED.utc_offset_seconds,
                timezone = EXCLUDED.timezone,
                fetched_at = EXCLUDED.fetched_at,
                latitude = EXCLUDED.latitude,
                longitude = EXCLUDED.longitude`,
        [
          sunSourceId,
          days.map((day) => day.date),
          days.map((day) => day.temperatureMax),
          days.map((day) => day.temperatureMin),
          days.map((day) => day.shortwaveRadiationSum),
          days.map((day) => day.weatherCode),
          days.map((day) => day.uvIndexMax),
          days.map((day) => day.precipitationSum),
          days.map((day) => day.sunrise),
          days.map((day) => day.sunset),
          forecast.utcOffsetSeconds,
          forecast.timezone,
          fetchedAt,
          place.latitude,
          place.longitude,
        ],
      );
      await manager.query(
        `INSERT INTO weather_hourly (sun_source_id, ts, temperature, shortwave_radiation, cloud_cover,
                weather_code, uv_index, precipitation, fetched_at)
         SELECT $1::uuid, h.ts, h.temperature, h.shortwave_radiation, h.cloud_cover, h.weather_code,
                h.uv_index, h.precipitation, $9
           FROM unnest($2::timestamptz[], $3::float8[], $4::float8[], $5::float8[], $6::smallint[],
                       $7::float8[], $8::float8[])
                AS h (ts, temperature, shortwave_radiation, cloud_cover, weather_code, uv_index, precipitation)
         ON CONFLICT (sun_source_id, ts) DO UPDATE SET
                temperature = EXCLUDED.temperature,
                shortwave_radiation = EXCLUDED.shortwave_radiation,
                cloud_cover = EXCLUDED.cloud_cover,
                weather_code = EXCLUDED.weather_code,
                uv_index = EXCLUDED.uv_index,
                precipitation = EXCLUDED.precipitation,
                fetched_at = EXCLUDED.fetched_at`,
        [
          sunSourceId,
          hours.map((hour) => hour.ts.toISOString()),
          hours.map((hour) => hour.temperature),
          hours.map((hour) => hour.shortwaveRadiation),
          hours.map((hour) => hour.cloudCover),
          hours.map((hour) => hour.weatherCode),
          hours.map((hour) => hour.uvIndex),
          hours.map((hour) => hour.precipitation),
          fetchedAt,
        ],
      );
    });
  }

  /**
   * Up to `limit` days from "today at the source" on, ascending. Today is `now` shifted by the
   * offset the provider applied to the stored days, so it is the same calendar they are in.
   * Only days fetched for `place` count (or stored before days kept their place).
   */
  upcomingDays(
    sunSourceId: string,
    place: Coordinates,
    now: Date,
    limit: number,
  ): Promise<StoredWeatherDay[]> {
    return this.dataSource.query(
      `SELECT id, sun_source_id AS "sunSourceId", to_char(date, 'YYYY-MM-DD') AS date,
              temperature_max AS "temperatureMax", temperature_min AS "temperatureMin",
              shortwave_radiation_sum AS "shortwaveRadiationSum", weather_code AS "weatherCode",
              uv_index_max AS "uvIndexMax", precipitation_sum AS "precipitationSum",
              to_char(sunrise, 'YYYY-MM-DD"T"HH24:MI') AS sunrise,
              to_char(sunset, 'YYYY-MM-DD"T"HH24:MI') AS sunset
         FROM weather_daily
        WHERE sun_source_id = $1
          AND date >= (($2::timestamptz AT TIME ZONE 'UTC') + make_interval(secs => utc_offset_seconds))::date
          AND (latitude IS NULL OR (latitude = $4 AND longitude = $5))
        ORDER BY date
        LIMIT $3`,
      [sunSourceId, now, limit, place.latitude, place.longitude],
    );
  }

  /** Whether any hour of `[from, to)` is stored. */
  async hasHours(sunSourceId: string, from: Date, to: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM weather_hourly WHERE sun_source_id = $1 AND ts >= $2 AND ts < $3 LIMIT 1`,
      [sunSourceId, from, to],
    );
    return rows.length > 0;
  }

  /** The hourly series in `[from, to)`, ascending. */
  async hours(sunSourceId: string, from: Date, to: Date): Promise<WeatherHour[]> {
    const rows: HourRow[] = await this.dataSource.query(
      `SELECT ts, temperature, shortwave_radiation, cloud_cover, weather_code, uv_index, precipitation
         FROM weather_hourly
        WHERE sun_source_id = $1 AND ts >= $2 AND ts < $3
        ORDER BY ts`,
      [sunSourceId, from, to],
    );
    return rows.map((row) => ({
      ts: row.ts,
      temperature: row.temperature,
      shortwaveRadiation: row.shortwave_radiation,
      cloudCover: row.cloud_cover,
      weatherCode: row.weather_code,
      uvIndex: row.uv_index,
      precipitation: row.precipitation,
    }));
  }
}
