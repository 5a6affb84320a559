import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '@solar/core';
import {
  coordinatesOf,
  SOURCE_NEEDS_COORDINATES,
  SUN_SOURCE_NOT_FOUND,
  SunSourcesService,
  SunSourceView,
  WeatherService,
} from '@solar/domain';
import {
  dayAheadForecast,
  Forecast,
  ForecastInput,
  servedModelKind,
  Site,
  TrainedModel,
  TRAINING_DAYS,
  TrainingInput,
  withPackedTrees,
} from '@solar/forecast';
import { modelRetrainingDuration } from '@solar/monitoring';
import { ForecastCompute, ForecastComputeError } from '../compute/forecast-compute';
import {
  MIN_TRAINING_HOURS,
  MODEL_MUST_BE_TRAINED,
  notEnoughDataMessage,
  PREDICTION_SERVICE_UNAVAILABLE,
  PredictionJobRecord,
  PredictionJobStatus,
  QueuedPredictionJob,
  queuedRecord,
} from '../jobs/prediction-job';
import { PredictionJobStore } from '../jobs/prediction-job.store';
import { DayAheadForecastRepository } from '../storage/day-ahead-forecast.repository';
import { ForecastModelRepository } from '../storage/forecast-model.repository';
import { PredictionHistoryRepository } from '../storage/prediction-history.repository';
import { PredictionRepository } from '../storage/prediction.repository';
import { JobProgress } from './job-progress';
import { toModelWeather } from './model-weather';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const TRAINING_WINDOW_MS = TRAINING_DAYS * DAY_MS;
/** History a forecast starts from (profiles, lags, the current state of charge): the model reads 15 days. */
const FORECAST_HISTORY_MS = 16 * DAY_MS;
/** Weather asked of the store for a forecast: the provider's eight days. */
const FORECAST_WEATHER_MS = 8 * DAY_MS;

/** A failure the owner should read as is (data, model or source), not a machinery failure. */
export class PredictionJobError extends Error {
  override readonly name = 'PredictionJobError';
}

type JobOutcome = Pick<
  PredictionJobRecord,
  'message' | 'metrics' | 'predictions' | 'dataPointsUsed' | 'modelMetrics' | 'servedModel'
>;

/**
 * Runs one training or forecast job from start to end: reads the source, its weather (fetched
 * first when none is stored) and its hourly history, hands the plain data to `ForecastCompute`
 * (a worker thread in production), stores the result and keeps the job record up to date. The
 * database and Redis work stays on this thread, in Nest's context; only the model runs elsewhere.
 */
@Injectable()
export class PredictionRunner {
  private readonly logger = new Logger(PredictionRunner.name);

  constructor(
    private readonly sources: SunSourcesService,
    private readonly weather: WeatherService,
    private readonly history: PredictionHistoryRepository,
    private readonly models: ForecastModelRepository,
    private readonly predictions: PredictionRepository,
    private readonly dayAhead: DayAheadForecastRepository,
    private readonly store: PredictionJobStore,
    private readonly compute: ForecastCompute,
    private readonly clock: Clock,
  ) {}

  /** A job from the queue. Its active marker is released however it ends. */
  async runQueued(job: QueuedPredictionJob): Promise<PredictionJobStatus> {
    try {
      return await this.execute(job, { requireModel: false });
    } finally {
      await this.store.release(job.type, job.sunSourceId, job.jobId);
    }
  }

  /**
   * A scheduled prediction: synchronous, without the concurrent-job guard, under a
   * `scheduled-<uuid>` id, and only from a trained model.
   */
  async runScheduled(source: {
    id: string;
    userId: string;
  }): Promise<{ jobId: string; status: PredictionJobStatus }> {
    const jobId = `scheduled-${randomUUID()}`;
    const job: QueuedPredictionJob = { jobId, type: 'predict', sunSourceId: source.id };
    await this.store.create(queuedRecord({ ...job, ownerId: source.userId }, this.clock.now()));
    return { jobId, status: await this.execute(job, { requireModel: true }) };
  }

  /** A queued job the queue gave up on without our processor finishing it (a crashed worker). */
  async abandon(job: QueuedPredictionJob): Promise<void> {
    const record = await this.store.get(job.jobId);
    if (record && record.status !== 'completed' && record.status !== 'failed') {
      await this.store.update(job.jobId, {
        status: 'failed',
        error: PREDICTION_SERVICE_UNAVAILABLE,
        updatedAt: this.clock.now().toISOString(),
      });
    }
    await this.store.release(job.type, job.sunSourceId, job.jobId);
  }

  private async execute(
    job: QueuedPredictionJob,
    options: { requireModel: boolean },
  ): Promise<PredictionJobStatus> {
    const progress = new JobProgress(this.store, job.jobId, this.clock);
    await this.store.update(job.jobId, {
      status: 'running',
      progress: 5,
      message: 'Preparing weather data',
      updatedAt: this.clock.now().toISOString(),
    });
    try {
      const source = await this.sources.findAny(job.sunSourceId);
      if (!source) throw new PredictionJobError(SUN_SOURCE_NOT_FOUND);
      const site = siteOf(source);
      const now = this.clock.now();
      await this.prepareWeather(source, now);
      const outcome =
        job.type === 'train'
          ? await this.train(source.id, site, now, progress)
          : await this.forecast(job.jobId, source.id, site, now, progress, options.requireModel);
      await progress.finish({ status: 'completed', progress: 100, error: null, ...outcome });
      this.logger.log({ jobId: job.jobId, sunSourceId: job.sunSourceId }, `${job.type} job completed`);
      return 'completed';
    } catch (error) {
      // The data's or the model's own words are for the owner; anything else only for the log.
      const told = toldAsIs(error);
      if (told) this.logger.warn({ jobId: job.jobId, reason: error.message }, `${job.type} job failed`);
      else this.logger.error({ err: error, jobId: job.jobId }, `${job.type} job failed`);
      await progress.finish({
        status: 'failed',
        message: null,
        error: told ? error.message : PREDICTION_SERVICE_UNAVAILABLE,
      });
      return 'failed';
    }
  }

  private async train(
    sunSourceId: string,
    site: Site,
    now: Date,
    progress: JobProgress,
  ): Promise<JobOutcome> {
    progress.report(10, 'Loading history');
    const data = await this.trainingData(sunSourceId, now);
    progress.report(15, 'Training the model');
    const model = await this.compute.train({
      site,
      ...data,
      now,
      onProgress: (percent) => progress.report(15 + 0.75 * percent),
    });
    progress.report(92, 'Saving the model');
    await this.models.save(sunSourceId, model, validDate(model.trainedAt) ?? now);
    return {
      message: 'Model trained',
      metrics: model.metrics,
      predictions: null,
      dataPointsUsed: model.dataPointsUsed,
      modelMetrics: model.metrics,
      servedModel: model.servedModel ?? null,
    };
  }

  /**
   * A scheduled run's new training of a source's model (docs/forecasting.md, "Training again"),
   * stored in place of the one trained at `replacing` unless a training has replaced that
   * meanwhile. Says whether it stored one; a failure is logged and noted, and the stored model
   * stays.
   */
  async retrain(sunSourceId: string, replacing: Date): Promise<boolean> {
    const started = performance.now();
    let outcome: 'stored' | 'superseded' | 'failed' = 'failed';
    try {
      const source = await this.sources.findAny(sunSourceId);
      if (!source) throw new PredictionJobError(SUN_SOURCE_NOT_FOUND);
      const site = siteOf(source);
      const now = this.clock.now();
      const model = await this.compute.train({ site, ...(await this.trainingData(sunSourceId, now)), now });
      const trainedAt = validDate(model.trainedAt) ?? now;
      const stored = await this.models.replaceTrainedAt(sunSourceId, replacing, model, trainedAt);
      outcome = stored ? 'stored' : 'superseded';
      this.logger.log({ sunSourceId, hours: model.dataPointsUsed, outcome }, 'model trained again');
      return stored;
    } catch (error) {
      if (toldAsIs(error))
        this.logger.warn({ sunSourceId, reason: error.message }, 'could not train the model again');
      else this.logger.error({ err: error, sunSourceId }, 'could not train the model again');
      // Tried again in 30 days, so that models that keep failing do not take every run's trainings.
      await this.models
        .retrainingFailed(sunSourceId, replacing, this.clock.now())
        .catch((failure: unknown) => {
          this.logger.error({ err: failure, sunSourceId }, 'could not note the failed training');
        });
      return false;
    } finally {
      modelRetrainingDuration.observe({ outcome }, (performance.now() - started) / 1000);
    }
  }

  /** The source's last year of hours and their weather, as a training reads them. */
  private async trainingData(
    sunSourceId: string,
    now: Date,
  ): Promise<Pick<TrainingInput, 'history' | 'weather'>> {
    const from = new Date(now.getTime() - TRAINING_WINDOW_MS);
    // A year of hours from the rollup: the raw rows of a year are millions.
    const history = await this.history.measuredHours(sunSourceId, from, now);
    if (history.length < MIN_TRAINING_HOURS)
      throw new PredictionJobError(notEnoughDataMessage(history.length));
    // One hour more: the last hour's radiation is stamped at its end.
    const weather = toModelWeather(
      await this.weather.hourly(sunSourceId, { from, to: new Date(now.getTime() + HOUR_MS) }),
    );
    return { history, weather };
  }

  private async forecast(
    jobId: string,
    sunSourceId: string,
    site: Site,
    now: Date,
    progress: JobProgress,
    requireModel: boolean,
  ): Promise<JobOutcome> {
    progress.report(10, 'Loading history');
    const stored = await this.models.stored(sunSourceId);
    const model = stored?.model ?? null;
    if (!model && requireModel) throw new PredictionJobError(MODEL_MUST_BE_TRAINED);
    // From the hourly rollup, as the training reads it: 16 days of raw rows are up to 138,240.
    const history = await this.history.measuredHours(
      sunSourceId,
      new Date(now.getTime() - FORECAST_HISTORY_MS),
      now,
    );
    const from = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
    const weather = toModelWeather(
      await this.weather.hourly(sunSourceId, {
        from,
        to: new Date(from.getTime() + FORECAST_WEATHER_MS + HOUR_MS),
      }),
    );

    progress.report(30, model ? 'Forecasting' : 'Forecasting from solar physics (no trained model)');
    const input: ForecastInput = { site, model, history, weather, now };
    const { forecast: result, physics } = await this.compute.forecast(input);
    progress.report(90, 'Saving the forecast');
    await this.predictions.insert(sunSourceId, jobId, result);
    await this.keepDayAhead(jobId, sunSourceId, input, result, physics ?? result);
    if (stored) await this.packOlderModel(sunSourceId, stored);
    // A stored model the forecast cannot use (an older version, damaged trees) was served as the
    // physics-only baseline: the job reports that, not the model's hold-out.
    const usable = model !== null && servedModelKind(model) !== 'physics';
    return {
      message: usable
        ? 'Forecast ready'
        : `Forecast ready (physics baseline: ${model ? 'the stored model cannot be used; train again' : 'no trained model'})`,
      metrics: null,
      predictions: result.hourly,
      dataPointsUsed: history.length,
      modelMetrics: usable ? model.metrics : null,
      servedModel: usable ? (model.servedModel ?? null) : null,
    };
  }

  /**
   * Keeps the forecast's next UTC day as that day's day-ahead forecast, beside the physics-only
   * forecast the same computation made from the same inputs, for the accuracy scores
   * (docs/forecast-accuracy.md). The owner's forecast is stored already: a failure here is logged
   * and does not fail the job.
   */
  private async keepDayAhead(
    jobId: string,
    sunSourceId: string,
    input: ForecastInput,
    served: Forecast,
    physics: Forecast,
  ): Promise<void> {
    try {
      const model = servedModelKind(input.model);
      const day = dayAheadForecast(input.now, served, physics, input.site, input.model);
      if (!day) return;
      await this.dayAhead.keep(sunSourceId, {
        ...day,
        issuedAt: input.now,
        jobId,
        model,
        modelTrainedAt: model === 'physics' ? null : trainedAtOf(input.model),
      });
    } catch (error) {
      this.logger.error({ err: error, jobId, sunSourceId }, 'could not keep the day-ahead forecast');
    }
  }

  /**
   * A model stored before the trees were packed is stored again packed by its first forecast: the
   * same model in a quarter of the size, cheaper for every forecast after. Unless a training has
   * replaced it meanwhile. A failure is logged and the forecast stands.
   */
  private async packOlderModel(
    sunSourceId: string,
    stored: { model: TrainedModel; trainedAt: Date },
  ): Promise<void> {
    try {
      const packed = withPackedTrees(stored.model);
      if (packed) await this.models.storeAgain(sunSourceId, stored.trainedAt, packed);
    } catch (error) {
      this.logger.error({ err: error, sunSourceId }, 'could not store the model with its trees packed');
    }
  }

  /**
   * Weather is fetched first when none is stored for the coming hours. A provider
   * that fails does not fail the job: the model works without weather.
   */
  private async prepareWeather(source: SunSourceView, now: Date): Promise<void> {
    const to = new Date(now.getTime() + DAY_MS);
    if (await this.weather.hasHourly(source.id, { from: now, to })) return;
    try {
      await this.weather.refreshSource(source);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ sunSourceId: source.id, reason }, 'no weather for the job; going on without');
    }
  }
}

/** The data's, the model's or the source's own words: a warning, not a machinery error. */
function toldAsIs(error: unknown): error is PredictionJobError | ForecastComputeError {
  return error instanceof PredictionJobError || error instanceof ForecastComputeError;
}

function siteOf(source: SunSourceView): Site {
  const coordinates = coordinatesOf(source);
  // Checked when the job was asked for; the owner may have cleared them since.
  if (!coordinates) throw new PredictionJobError(SOURCE_NEEDS_COORDINATES);
  return {
    ...coordinates,
    capacityWatts: source.installedCapacityWatts,
    batteryCapacityWh: null,
    orientation: source.orientation ?? null,
  };
}

function trainedAtOf(model: TrainedModel | null): Date | null {
  return validDate(model?.trainedAt) ?? null;
}

function validDate(text: string | undefined): Date | undefined {
  const date = text === undefined ? undefined : new Date(text);
  return date && Number.isFinite(date.getTime()) ? date : undefined;
}
