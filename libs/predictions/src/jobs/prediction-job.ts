import { HourlyForecastPoint, ModelMetrics, ServedModel } from '@solar/forecast';

/** The two kinds of job, their states, and how long their traces last. */
export const PREDICTION_JOB_TYPES = ['train', 'predict'] as const;
export type PredictionJobType = (typeof PREDICTION_JOB_TYPES)[number];

export type PredictionJobStatus = 'queued' | 'running' | 'completed' | 'failed';

/** A job record is kept this long after its last update (24 hours). */
export const JOB_RECORD_TTL_MS = 24 * 3_600_000;

/** One active job per source and type; its marker lapses after this even if the job never ends. */
export const ACTIVE_MARKER_TTL_MS: Record<PredictionJobType, number> = {
  train: 30 * 60_000,
  predict: 10 * 60_000,
};

/** Fewer hourly points than this and training is refused (two full days). */
export const MIN_TRAINING_HOURS = 48;

export const MODEL_MUST_BE_TRAINED = 'Model must be trained first';
/** What a job says when the machinery itself, not the data, let it down. */
export const PREDICTION_SERVICE_UNAVAILABLE = 'ML service temporarily unavailable';
export const JOB_NOT_FOUND = 'Job not found';

export function notEnoughDataMessage(hours: number): string {
  return `Not enough data to train: ${hours} hourly points, at least ${MIN_TRAINING_HOURS} needed`;
}

/**
 * Everything stored about one job in Redis. `ownerId` is for the ownership check only and never
 * leaves the service; the rest is the status object the owner polls.
 */
export interface PredictionJobRecord {
  jobId: string;
  status: PredictionJobStatus;
  progress: number;
  message: string | null;
  error: string | null;
  type: PredictionJobType;
  sunSourceId: string;
  ownerId: string;
  /** ISO 8601 */
  updatedAt: string;
  /** Training: the validation metrics; a forecast: null. */
  metrics: ModelMetrics | null;
  /** A forecast: the 168 hourly points; training: null. */
  predictions: HourlyForecastPoint[] | null;
  dataPointsUsed: number;
  /** The metrics of the model behind the result (null while unknown, e.g. the physics baseline). */
  modelMetrics: ModelMetrics | null;
  /** Which model is live after a training or behind a forecast; null before, or with no trained model. */
  servedModel: ServedModel | null;
}

/** The status object of a job, as the owner polls it. */
export type PredictionJobView = Omit<PredictionJobRecord, 'ownerId' | 'modelMetrics'> & {
  modelMetrics: ModelMetrics | Record<string, never>;
};

export function toPredictionJobView(record: PredictionJobRecord): PredictionJobView {
  return {
    jobId: record.jobId,
    status: record.status,
    progress: record.progress,
    message: record.message,
    error: record.error,
    type: record.type,
    sunSourceId: record.sunSourceId,
    updatedAt: record.updatedAt,
    metrics: record.metrics,
    predictions: record.predictions,
    dataPointsUsed: record.dataPointsUsed,
    modelMetrics: record.modelMetrics ?? {},
    servedModel: record.servedModel ?? null,
  };
}

/** A new record, as enqueueing (or a scheduled run) creates it. */
export function queuedRecord(
  job: { jobId: string; type: PredictionJobType; sunSourceId: string; ownerId: string },
  now: Date,
): PredictionJobRecord {
  return {
    ...job,
    status: 'queued',
    progress: 0,
    message: 'Waiting for the forecasting worker',
    error: null,
    updatedAt: now.toISOString(),
    metrics: null,
    predictions: null,
    dataPointsUsed: 0,
    modelMetrics: null,
    servedModel: null,
  };
}

/**
 * A job's id: `train_<first 8 hex of the source id>_<epoch seconds>` (and
 * `predict_...`). `offsetSeconds` moves past an id already taken in the same second.
 */
export function predictionJobId(
  type: PredictionJobType,
  sunSourceId: string,
  now: Date,
  offsetSeconds = 0,
): string {
  const short = sunSourceId.replace(/-/g, '').slice(0, 8).toLowerCase();
  return `${type}_${short}_${Math.floor(now.getTime() / 1000) + offsetSeconds}`;
}

/** What the queue carries: the rest is in the job record. */
export interface QueuedPredictionJob {
  jobId: string;
  type: PredictionJobType;
  sunSourceId: string;
}
