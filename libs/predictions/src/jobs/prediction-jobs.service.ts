import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import {
  BadRequestError,
  Clock,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '@solar/core';
import { coordinatesOf, SOURCE_NEEDS_COORDINATES, SunSourcesService, SunSourceView } from '@solar/domain';
import { DailyForecastPoint, HourlyForecastPoint, ModelMetrics, ServedModel } from '@solar/forecast';
import { ForecastModelRepository } from '../storage/forecast-model.repository';
import { PredictionRepository } from '../storage/prediction.repository';
import {
  JOB_NOT_FOUND,
  PREDICTION_SERVICE_UNAVAILABLE,
  predictionJobId,
  PredictionJobRecord,
  PredictionJobType,
  PredictionJobView,
  queuedRecord,
  toPredictionJobView,
} from './prediction-job';
import { PredictionJobStore } from './prediction-job.store';
import { PredictionQueue } from './prediction-queue';

/** PredictionResultDto: the answer to train and predict. */
export interface PredictionResult {
  jobId: string;
  status: 'queued' | 'already_running';
  predictions: null;
  metrics: null;
  error: null;
}

/** The latest prediction: the stored document without its internal id. */
export type LatestPrediction =
  | { exists: false; data: null }
  | {
      exists: true;
      data: {
        predictions: HourlyForecastPoint[];
        daily: DailyForecastPoint[];
        createdAt: string;
        jobId: string;
      };
    };

/** Model info: when the model was trained, on how many points, and its metrics. */
export type ForecastModelView =
  | { exists: false; data: null }
  | {
      exists: true;
      data: {
        trainedAt: string;
        dataPointsUsed: number;
        metrics: ModelMetrics;
        servedModel: ServedModel | null;
      };
    };

/** Ids tried when the natural one (source and second) is already taken by an earlier job. */
const JOB_ID_ATTEMPTS = 10;

export const TOO_MANY_PREDICTION_JOBS = 'Too many prediction jobs in progress. Try again later.';
/** A forecast job usually ends within a minute: about when a place may be free again. */
export const PREDICTION_JOBS_RETRY_AFTER_SECONDS = 60;

/**
 * The owner's side of the forecasting jobs: starts them (at most one active
 * per source and type), reports on them, and reads what they stored. The jobs themselves run in
 * the scheduler's worker (`PredictionRunner`).
 */
@Injectable()
export class PredictionJobsService {
  private readonly logger = new Logger(PredictionJobsService.name);

  constructor(
    private readonly sources: SunSourcesService,
    private readonly store: PredictionJobStore,
    private readonly queue: PredictionQueue,
    private readonly models: ForecastModelRepository,
    private readonly predictions: PredictionRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  train(ownerId: string, sunSourceId: string): Promise<PredictionResult> {
    return this.start(ownerId, sunSourceId, 'train');
  }

  predict(ownerId: string, sunSourceId: string): Promise<PredictionResult> {
    return this.start(ownerId, sunSourceId, 'predict');
  }

  /** An unknown job and another user's job are the same 404. */
  async status(ownerId: string, jobId: string): Promise<PredictionJobView> {
    const record = await this.store.get(jobId);
    if (!record || record.ownerId !== ownerId) throw new NotFoundError(JOB_NOT_FOUND);
    return toPredictionJobView(record);
  }

  async latest(ownerId: string, sunSourceId: string): Promise<LatestPrediction> {
    return this.latestOf((await this.owned(ownerId, sunSourceId)).id);
  }

  /** `latest` without the ownership check, for a source its owner shares. */
  async latestOf(sunSourceId: string): Promise<LatestPrediction> {
    const stored = await this.predictions.latest(sunSourceId);
    if (!stored) return { exists: false, data: null };
    return {
      exists: true,
      data: {
        predictions: stored.predictions,
        daily: stored.daily,
        createdAt: stored.createdAt.toISOString(),
        jobId: stored.jobId,
      },
    };
  }

  async modelInfo(ownerId: string, sunSourceId: string): Promise<ForecastModelView> {
    const info = await this.models.info((await this.owned(ownerId, sunSourceId)).id);
    if (!info) return { exists: false, data: null };
    return {
      exists: true,
      data: {
        trainedAt: info.trainedAt.toISOString(),
        dataPointsUsed: info.dataPointsUsed,
        metrics: info.metrics,
        servedModel: info.servedModel ?? null,
      },
    };
  }

  private async start(
    ownerId: string,
    sunSourceId: string,
    type: PredictionJobType,
  ): Promise<PredictionResult> {
    const source = await this.owned(ownerId, sunSourceId);
    if (!coordinatesOf(source)) throw new BadRequestError(SOURCE_NEEDS_COORDINATES);
    const now = this.clock.now();
    for (let offset = 0; offset < JOB_ID_ATTEMPTS; offset++) {
      const jobId = predictionJobId(type, source.id, now, offset);
      const record = queuedRecord({ jobId, type, sunSourceId: source.id, ownerId }, now);
      // The worker runs one job at a time for everyone: one user's pile of jobs would hold up all
      // the others', so each user has only so many queued or running at once.
      const claim = await this.store.claim(record, this.config.limits.predictionJobsPerUser);
      if (claim.outcome === 'active') return result(claim.activeJobId, 'already_running');
      if (claim.outcome === 'limit') {
        throw new TooManyRequestsError(TOO_MANY_PREDICTION_JOBS, PREDICTION_JOBS_RETRY_AFTER_SECONDS);
      }
      if (claim.outcome === 'claimed') {
        await this.submit(record);
        return result(jobId, 'queued');
      }
    }
    throw new Error(`no free job id for ${type} of ${source.id} within ${JOB_ID_ATTEMPTS} seconds`);
  }

  /** A job the machinery cannot take fails at once and frees its marker. */
  private async submit(record: PredictionJobRecord): Promise<void> {
    const { jobId, type, sunSourceId } = record;
    try {
      await this.queue.add({ jobId, type, sunSourceId });
    } catch (error) {
      this.logger.error({ err: error, jobId }, 'could not enqueue a prediction job');
      await this.store
        .update(jobId, {
          status: 'failed',
          message: null,
          error: PREDICTION_SERVICE_UNAVAILABLE,
          updatedAt: this.clock.now().toISOString(),
        })
        .catch(() => undefined);
      await this.store.release(type, sunSourceId, jobId).catch(() => undefined);
      throw new ServiceUnavailableError(PREDICTION_SERVICE_UNAVAILABLE);
    }
  }

  /** The owner's source; another user's, or none, is NotFoundError. */
  private owned(ownerId: string, sunSourceId: string): Promise<SunSourceView> {
    return this.sources.get(ownerId, sunSourceId);
  }
}

function result(jobId: string, status: PredictionResult['status']): PredictionResult {
  return { jobId, status, predictions: null, metrics: null, error: null };
}
