import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ModelMetrics, ServedModel, TrainedModel } from '@solar/forecast';

/** Model info (when trained, points used, metrics, what is served), without the model itself. */
export interface ForecastModelInfo {
  trainedAt: Date;
  dataPointsUsed: number;
  metrics: ModelMetrics;
  /** Which model is live (learned or baseline, per part) and the orientation's source; null for older models. */
  servedModel: ServedModel | null;
}

/** `forecast_models`: one trained model per source, replaced by each training. */
@Injectable()
export class ForecastModelRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async save(sunSourceId: string, model: TrainedModel, trainedAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO forecast_models (sun_source_id, trained_at, data_points_used, metrics, model)
       VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)
       ON CONFLICT (sun_source_id) DO UPDATE SET
              trained_at = EXCLUDED.trained_at,
              data_points_used = EXCLUDED.data_points_used,
              metrics = EXCLUDED.metrics,
              model = EXCLUDED.model,
              retraining_failed_at = NULL`,
      [sunSourceId, trainedAt, model.dataPointsUsed, JSON.stringify(model.metrics), JSON.stringify(model)],
    );
  }

  /**
   * Stores `model`, trained at `trainedAt`, in place of the one trained at `replacing`, unless a
   * training has replaced that since; says whether it did. A new model clears the note of a failed
   * training again.
   */
  async replaceTrainedAt(
    sunSourceId: string,
    replacing: Date,
    model: TrainedModel,
    trainedAt: Date,
  ): Promise<boolean> {
    const [, updated]: [unknown, number] = await this.dataSource.query(
      `UPDATE forecast_models
          SET trained_at = $3, data_points_used = $4, metrics = $5::jsonb, model = $6::jsonb,
              retraining_failed_at = NULL
        WHERE sun_source_id = $1 AND trained_at = $2`,
      [
        sunSourceId,
        replacing,
        trainedAt,
        model.dataPointsUsed,
        JSON.stringify(model.metrics),
        JSON.stringify(model),
      ],
    );
    return updated === 1;
  }

  /**
   * Stores the model trained at `trainedAt` again in another form (its trees packed), unless a
   * training has replaced it since; says whether it did. Only the model's JSON changes: a note of
   * a failed training again stays, so the model still waits its 30 days.
   */
  async storeAgain(sunSourceId: string, trainedAt: Date, model: TrainedModel): Promise<boolean> {
    const [, updated]: [unknown, number] = await this.dataSource.query(
      `UPDATE forecast_models SET model = $3::jsonb WHERE sun_source_id = $1 AND trained_at = $2`,
      [sunSourceId, trainedAt, JSON.stringify(model)],
    );
    return updated === 1;
  }

  /**
   * Of the sources `sunSourceIds`, those whose model is due to be trained again as
   * `retrainingDue` (libs/forecast) decides, at the moments `retrainingCutoffs` gives: trained at
   * `youngTrainedBefore` or earlier on fewer than `fullYearHours` hours, or at `anyTrainedBefore`
   * or earlier; and whose last failed attempt, if any, was at `failedBefore` or earlier. The
   * longest untrained first, at most `limit`.
   */
  async dueForRetraining(
    sunSourceIds: readonly string[],
    due: { youngTrainedBefore: Date; fullYearHours: number; anyTrainedBefore: Date; failedBefore: Date },
    limit: number,
  ): Promise<Array<{ sunSourceId: string; trainedAt: Date }>> {
    if (sunSourceIds.length === 0 || limit <= 0) return [];
    return this.dataSource.query(
      `SELECT sun_source_id AS "sunSourceId", trained_at AS "trainedAt"
         FROM forecast_models
        WHERE sun_source_id = ANY($1::uuid[])
          AND ((trained_at <= $2 AND data_points_used < $3) OR trained_at <= $4)
          AND (retraining_failed_at IS NULL OR retraining_failed_at <= $6)
        ORDER BY trained_at, sun_source_id
        LIMIT $5`,
      [
        sunSourceIds,
        due.youngTrainedBefore,
        due.fullYearHours,
        due.anyTrainedBefore,
        limit,
        due.failedBefore,
      ],
    );
  }

  /** Notes that training the model trained at `trainedAt` again failed at `failedAt`. */
  async retrainingFailed(sunSourceId: string, trainedAt: Date, failedAt: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE forecast_models SET retraining_failed_at = $3 WHERE sun_source_id = $1 AND trained_at = $2`,
      [sunSourceId, trainedAt, failedAt],
    );
  }

  /** The stored model with the time of its training, as the forecast will read it. */
  async stored(sunSourceId: string): Promise<{ model: TrainedModel; trainedAt: Date } | undefined> {
    const rows: Array<{ model: TrainedModel; trainedAt: Date }> = await this.dataSource.query(
      `SELECT model, trained_at AS "trainedAt" FROM forecast_models WHERE sun_source_id = $1`,
      [sunSourceId],
    );
    return rows[0];
  }

  async info(sunSourceId: string): Promise<ForecastModelInfo | undefined> {
    const rows: ForecastModelInfo[] = await this.dataSource.query(
      `SELECT trained_at AS "trainedAt", data_points_used AS "dataPointsUsed", metrics,
              model->'servedModel' AS "servedModel"
         FROM forecast_models WHERE sun_source_id = $1`,
      [sunSourceId],
    );
    return rows[0];
  }
}
