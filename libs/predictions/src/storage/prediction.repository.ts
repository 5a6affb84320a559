import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DailyForecastPoint, Forecast, HourlyForecastPoint } from '@solar/forecast';

/** A stored forecast, as the latest-prediction endpoint shows it (no internal id). */
export interface StoredPrediction {
  predictions: HourlyForecastPoint[];
  daily: DailyForecastPoint[];
  createdAt: Date;
  jobId: string;
}

/** `predictions`: every forecast made for a source; the latest by creation time is the one shown. */
@Injectable()
export class PredictionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Creation time is the database's, so two forecasts of one source never tie. */
  async insert(sunSourceId: string, jobId: string, forecast: Forecast): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO predictions (sun_source_id, job_id, predictions, daily) VALUES ($1, $2, $3::jsonb, $4::jsonb)`,
      [sunSourceId, jobId, JSON.stringify(forecast.hourly), JSON.stringify(forecast.daily)],
    );
  }

  async latest(sunSourceId: string): Promise<StoredPrediction | undefined> {
    const rows: StoredPrediction[] = await this.dataSource.query(
      `SELECT predictions, daily, created_at AS "createdAt", job_id AS "jobId"
         FROM predictions WHERE sun_source_id = $1
        ORDER BY created_at DESC LIMIT 1`,
      [sunSourceId],
    );
    return rows[0];
  }

  /** Only the daily points of the latest forecast (for the ROI calculation). */
  async latestDaily(sunSourceId: string): Promise<DailyForecastPoint[]> {
    const rows: Array<{ daily: DailyForecastPoint[] }> = await this.dataSource.query(
      `SELECT daily FROM predictions WHERE sun_source_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [sunSourceId],
    );
    return rows[0]?.daily ?? [];
  }
}
