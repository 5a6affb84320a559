import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DayAheadForecast, DayAheadHour, ForecastModelKind } from '@solar/forecast';

/** A kept day-ahead forecast, with who made it and when. */
export interface StoredDayAheadForecast extends DayAheadForecast {
  issuedAt: Date;
  jobId: string;
  model: ForecastModelKind;
  modelTrainedAt: Date | null;
}

interface Row {
  date: string;
  issuedAt: Date;
  jobId: string;
  model: ForecastModelKind;
  modelTrainedAt: Date | null;
  hours: DayAheadHour[];
  previousDayClearSky: number[];
}

/**
 * `day_ahead_forecasts`: per source and UTC day, the last forecast issued the day before. Reads
 * take a source id the caller has checked (owner, or the sharing configuration).
 */
@Injectable()
export class DayAheadForecastRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Kept unless a forecast issued later for the same day is already there. */
  async keep(sunSourceId: string, forecast: StoredDayAheadForecast): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO day_ahead_forecasts
              (sun_source_id, date, issued_at, job_id, model, model_trained_at, hours, previous_day_clear_sky)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)
       ON CONFLICT (sun_source_id, date) DO UPDATE SET
              issued_at = EXCLUDED.issued_at,
              job_id = EXCLUDED.job_id,
              model = EXCLUDED.model,
              model_trained_at = EXCLUDED.model_trained_at,
              hours = EXCLUDED.hours,
              previous_day_clear_sky = EXCLUDED.previous_day_clear_sky
        WHERE day_ahead_forecasts.issued_at <= EXCLUDED.issued_at`,
      [
        sunSourceId,
        forecast.date,
        forecast.issuedAt,
        forecast.jobId,
        forecast.model,
        forecast.modelTrainedAt,
        JSON.stringify(forecast.hours),
        JSON.stringify(forecast.previousDayClearSky),
      ],
    );
  }

  /** The days in `[from, to]` (`YYYY-MM-DD`, UTC) that have one, oldest first. */
  async between(sunSourceId: string, from: string, to: string): Promise<StoredDayAheadForecast[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT to_char(date, 'YYYY-MM-DD') AS date, issued_at AS "issuedAt", job_id AS "jobId", model,
              model_trained_at AS "modelTrainedAt", hours, previous_day_clear_sky AS "previousDayClearSky"
         FROM day_ahead_forecasts
        WHERE sun_source_id = $1 AND date BETWEEN $2::date AND $3::date
        ORDER BY date`,
      [sunSourceId, from, to],
    );
    return rows;
  }
}
