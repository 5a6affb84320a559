import { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { TrainedModel } from '@solar/forecast';
import { modelRetrainingDuration } from '@solar/monitoring';
import {
  ForecastModelRepository,
  PredictionJobRecord,
  PredictionJobStore,
  PredictionRunner,
  ScheduledPredictions,
  TrainingThreadForecastCompute,
} from '@solar/predictions';
import { REDIS, RedisLocks } from '@solar/redis';
import { syntheticSeries } from '@solar/synthetic';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  insertTelemetryHistory,
  TestEnvironment,
  withTreesAsArrays,
} from '@solar/testing';
import { createSchedulerApp } from '../src/create-scheduler-app';
import { JobRunner } from '../src/jobs/job-runner';

jest.setTimeout(30_000);

const NOW = new Date('2026-06-10T12:30:00Z');
const BERLIN = { latitude: 52.52, longitude: 13.4 };
const DAY_MS = 86_400_000;
const ROOT = join(__dirname, '..', '..', '..');

/**
 * The production compute (a worker thread per training) on the TypeScript sources: a bare
 * thread cannot load `.ts`, so this one compiles them with @swc/core as Jest does, maps the
 * `@solar/*` aliases to `libs/*\/src`, then runs the real thread entry.
 */
const TYPESCRIPT_THREAD = `
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const root = ${JSON.stringify(ROOT)};
const { transformSync } = Module.createRequire(path.join(root, 'package.json'))('@swc/core');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@solar\\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, alias ? path.join(root, 'libs', alias[1], 'src') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022', keepClassNames: true },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require(path.join(root, 'libs/predictions/src/compute/forecast-compute.worker.ts'));
`;

const threadCompute = () =>
  new TrainingThreadForecastCompute(
    (request) => new Worker(TYPESCRIPT_THREAD, { eval: true, workerData: request }),
  );

describe('scheduled predictions', () => {
  const clock = new FakeClock(NOW);
  const weather = new FakeOpenMeteo({ firstDate: '2026-06-10', utcOffsetSeconds: 7200 });
  let env: TestEnvironment;
  let db: Client;
  let first: INestApplication;
  let second: INestApplication;

  beforeAll(async () => {
    await weather.start();
    env = await createTestEnvironment({ WEATHER_API_URL: weather.url });
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [first, second] = await Promise.all([
      createSchedulerApp(env.config, { clock, forecastCompute: threadCompute() }),
      createSchedulerApp(env.configWith({}), { clock, forecastCompute: threadCompute() }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await db.end();
    await env.teardown();
    await weather.stop();
  });

  async function user(autoRunPredictions?: '0' | '1'): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      id,
      `${id}@example.com`,
    ]);
    if (autoRunPredictions) {
      await db.query(`INSERT INTO user_settings (user_id, setting_type, value) VALUES ($1, 1, $2)`, [
        id,
        autoRunPredictions,
      ]);
    }
    return id;
  }

  async function source(
    userId: string,
    fields: { latitude?: number; longitude?: number; isActive?: boolean } = BERLIN,
  ): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted, latitude, longitude, is_active)
       VALUES ($1, $2, 'S', 'Webhook', 'v1.x', $3, $4, $5)`,
      [id, userId, fields.latitude ?? null, fields.longitude ?? null, fields.isActive ?? true],
    );
    return id;
  }

  /** 20 days of hourly synthetic readings up to now. */
  async function history(sunSourceId: string): Promise<void> {
    const readings = syntheticSeries({
      ...BERLIN,
      capacityWatts: 4000,
      seed: 7,
      start: new Date(NOW.getTime() - 20 * DAY_MS),
      end: new Date(NOW.getTime() - 3_600_000),
      stepMinutes: 60,
    });
    await insertTelemetryHistory(db, sunSourceId, readings);
  }

  const predictionsOf = async (sunSourceId: string) =>
    (
      await db.query<{ jobId: string; hours: number; days: number }>(
        `SELECT job_id AS "jobId", jsonb_array_length(predictions) AS hours, jsonb_array_length(daily) AS days
           FROM predictions WHERE sun_source_id = $1`,
        [sunSourceId],
      )
    ).rows;

  /** Every job record the scheduled runs left, by source. */
  async function scheduledRecords(): Promise<Map<string, PredictionJobRecord>> {
    const redis = first.get<Redis>(REDIS);
    const prefix = env.config.redisKeyPrefix;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(
        cursor,
        'MATCH',
        `${prefix}prediction-jobs:scheduled-*`,
        'COUNT',
        1000,
      );
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    const store = first.get(PredictionJobStore);
    const records = await Promise.all(
      keys.map((key) => store.get(key.slice(`${prefix}prediction-jobs:`.length))),
    );
    return new Map(records.map((record) => [record!.sunSourceId, record!]));
  }

  it('registers the prediction job every 6 hours, half an hour after the weather refresh', () => {
    const registry = first.get(SchedulerRegistry);
    expect(String(registry.getCronJob('predict').cronTime.source)).toBe('30 */6 * * *');
    expect(registry.getCronJob('predict').cronTime.timeZone).toBe('UTC');
    expect(String(registry.getCronJob('weather').cronTime.source)).toBe('0 */6 * * *');
  });

  it('forecasts every active located source of users with setting 1, once per slot, whatever fails', async () => {
    const keen = await user('1');
    // Created first, so its failure comes before the others' runs.
    const neverTrained = await source(keen);
    const trained = await source(keen);
    const inactive = await source(keen, { ...BERLIN, isActive: false });
    const unlocated = await source(keen, {});
    const indifferent = await user();
    const declined = await user('0');
    const notAsked = [await source(indifferent), await source(declined)];

    await history(trained);
    // Trained in a real compute thread, as the queue worker would.
    const training = await first.get(PredictionRunner).runQueued({
      jobId: `train_test_${Date.now()}`,
      type: 'train',
      sunSourceId: trained,
    });
    expect(training).toBe('completed');
    for (const other of notAsked) {
      await db.query(
        `INSERT INTO forecast_models (sun_source_id, trained_at, data_points_used, metrics, model)
         SELECT $1, trained_at, data_points_used, metrics, model FROM forecast_models WHERE sun_source_id = $2`,
        [other, trained],
      );
    }

    // Not the slot of "now": a cron firing during the test must not take it first.
    const slot = new Date('2026-06-10T06:30:00Z');
    const reports = await Promise.all([
      first.get(JobRunner).run('predict', slot),
      second.get(JobRunner).run('predict', slot),
    ]);
    expect(reports.map((report) => report.status).sort()).toEqual(['completed', 'skipped']);
    expect(reports.find((report) => report.status === 'completed')).toMatchObject({
      job: 'predict',
      counts: { predicted: 1, failed: 1, skipped: 2 },
    });

    const [stored] = await predictionsOf(trained);
    expect(stored).toEqual({
      jobId: expect.stringMatching(
        /^scheduled-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      hours: 168,
      days: 7,
    });
    for (const other of [neverTrained, inactive, unlocated, ...notAsked]) {
      expect(await predictionsOf(other)).toEqual([]);
    }
    // Its next UTC day is kept as that day's day-ahead forecast, beside the physics-only one
    // computed with it.
    const dayAhead = await db.query(
      `SELECT sun_source_id, to_char(date, 'YYYY-MM-DD') AS date, job_id, model,
              jsonb_array_length(hours) AS hours, jsonb_array_length(previous_day_clear_sky) AS previous
         FROM day_ahead_forecasts WHERE sun_source_id = ANY($1)`,
      [[trained, neverTrained, inactive, unlocated, ...notAsked]],
    );
    expect(dayAhead.rows).toEqual([
      {
        sun_source_id: trained,
        date: '2026-06-11',
        job_id: stored.jobId,
        model: 'learned',
        hours: 24,
        previous: 24,
      },
    ]);

    const records = await scheduledRecords();
    expect([...records.keys()].sort()).toEqual([neverTrained, trained].sort());
    expect(records.get(trained)).toMatchObject({
      jobId: stored.jobId,
      status: 'completed',
      progress: 100,
      type: 'predict',
      ownerId: keen,
    });
    expect(records.get(neverTrained)).toMatchObject({
      status: 'failed',
      error: 'Model must be trained first',
      type: 'predict',
    });
    // No active-job marker is involved in a scheduled run.
    expect(await first.get<Redis>(REDIS).exists(`prediction-active:predict:${trained}`)).toBe(0);

    expect(await first.get(JobRunner).run('predict', slot)).toEqual({
      job: 'predict',
      status: 'skipped',
      reason: 'this slot already ran on another instance',
    });
  });

  it('stores a model kept with its trees as arrays packed, once its first forecast is made', async () => {
    const keen = await user('1');
    const id = await source(keen);
    await history(id);
    const runner = first.get(PredictionRunner);
    expect(
      await runner.runQueued({ jobId: `train_pack_${Date.now()}`, type: 'train', sunSourceId: id }),
    ).toBe('completed');
    const storedModel = async () =>
      (
        await db.query<{ model: TrainedModel; trainedAt: Date }>(
          `SELECT model, trained_at AS "trainedAt" FROM forecast_models WHERE sun_source_id = $1`,
          [id],
        )
      ).rows[0];
    const trained = await storedModel();
    const older = withTreesAsArrays(trained.model);
    expect(older).not.toEqual(trained.model);
    // An older model whose training again failed lately: packing it keeps that note.
    const failedAt = new Date(trained.trainedAt.getTime() + 60_000);
    await db.query(
      `UPDATE forecast_models SET model = $2::jsonb, retraining_failed_at = $3 WHERE sun_source_id = $1`,
      [id, JSON.stringify(older), failedAt],
    );

    expect((await runner.runScheduled({ id, userId: keen })).status).toBe('completed');
    expect(await storedModel()).toEqual(trained);
    const note = await db.query<{ failedAt: Date }>(
      `SELECT retraining_failed_at AS "failedAt" FROM forecast_models WHERE sun_source_id = $1`,
      [id],
    );
    expect(note.rows).toEqual([{ failedAt }]);
    // The same forecast from either form: the clock stands still.
    expect((await runner.runScheduled({ id, userId: keen })).status).toBe('completed');
    const forecasts = await db.query<{ predictions: unknown }>(
      `SELECT predictions FROM predictions WHERE sun_source_id = $1`,
      [id],
    );
    expect(forecasts.rows).toHaveLength(2);
    expect(forecasts.rows[1]).toEqual(forecasts.rows[0]);

    // A model the forecast cannot use is served as the physics-only baseline, and the job says so.
    await db.query(
      `UPDATE forecast_models SET model = jsonb_set(model, '{version}', '1') WHERE sun_source_id = $1`,
      [id],
    );
    const { jobId } = await runner.runScheduled({ id, userId: keen });
    expect(await first.get(PredictionJobStore).get(jobId)).toMatchObject({
      status: 'completed',
      message: 'Forecast ready (physics baseline: the stored model cannot be used; train again)',
      modelMetrics: null,
      servedModel: null,
    });
    await db.query(`UPDATE forecast_models SET model = $2::jsonb WHERE sun_source_id = $1`, [
      id,
      JSON.stringify(trained.model),
    ]);

    // A training since the model was read wins over its packed copy.
    const repository = first.get(ForecastModelRepository);
    expect(await repository.storeAgain(id, new Date(trained.trainedAt.getTime() - 1), older)).toBe(false);
    expect(await storedModel()).toEqual(trained);
  });

  it('trains a young model again once it is 30 days old, before the forecast reads it', async () => {
    const keen = await user('1');
    const [young, fresh, full] = [await source(keen), await source(keen), await source(keen)];
    for (const id of [young, fresh, full]) await history(id);
    // Due too, but its history is gone: its training fails, its model stays and forecasts.
    const emptied = await source(keen);
    expect(
      await first
        .get(PredictionRunner)
        .runQueued({ jobId: `train_young_${Date.now()}`, type: 'train', sunSourceId: young }),
    ).toBe('completed');
    // Its copies, as if trained 29 days ago, and 40 days ago on most of a year; itself 31 days ago.
    const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
    for (const id of [fresh, full, emptied]) {
      await db.query(
        `INSERT INTO forecast_models (sun_source_id, trained_at, data_points_used, metrics, model)
         SELECT $1, trained_at, data_points_used, metrics, model FROM forecast_models WHERE sun_source_id = $2`,
        [id, young],
      );
    }
    for (const [id, days] of [
      [young, 31],
      [emptied, 32],
      [fresh, 29],
      [full, 40],
    ] as const) {
      await db.query(
        `UPDATE forecast_models SET trained_at = $2::timestamptz, model = jsonb_set(model, '{trainedAt}', to_jsonb($2::text))
          WHERE sun_source_id = $1`,
        [id, daysAgo(days).toISOString()],
      );
    }
    await db.query(`UPDATE forecast_models SET data_points_used = $2 WHERE sun_source_id = $1`, [
      full,
      330 * 24,
    ]);
    const trainedAt = async (id: string) =>
      (
        await db.query<{ trainedAt: Date; hours: number }>(
          `SELECT trained_at AS "trainedAt", data_points_used AS hours FROM forecast_models WHERE sun_source_id = $1`,
          [id],
        )
      ).rows[0];
    const before = await trainedAt(young);
    const retrainings = async () =>
      Object.fromEntries(
        (await modelRetrainingDuration.get()).values
          .filter((sample) => sample.metricName === 'solar_model_retraining_duration_seconds_count')
          .map((sample) => [sample.labels.outcome, sample.value]),
      );
    const retrainedBefore = await retrainings();

    const counts = await first.get(ScheduledPredictions).run();
    // (The other tests' sources are forecast too; one of them was never trained.)
    expect(counts).toMatchObject({ retrained: 1 });
    expect(await trainedAt(young)).toEqual({ trainedAt: NOW, hours: before.hours });
    expect(await trainedAt(fresh)).toEqual({
      trainedAt: daysAgo(29),
      hours: before.hours,
    });
    expect(await trainedAt(full)).toEqual({
      trainedAt: daysAgo(40),
      hours: 330 * 24,
    });
    expect(await trainedAt(emptied)).toEqual({ trainedAt: daysAgo(32), hours: before.hours });
    const retrainedAfter = await retrainings();
    expect({
      stored: (retrainedAfter.stored ?? 0) - (retrainedBefore.stored ?? 0),
      failed: (retrainedAfter.failed ?? 0) - (retrainedBefore.failed ?? 0),
    }).toEqual({ stored: 1, failed: 1 });
    // The forecasts of the same run read the models stored then: the new one for `young`.
    const dayAhead = await db.query(
      `SELECT sun_source_id AS id, model_trained_at AS "trainedAt" FROM day_ahead_forecasts
        WHERE sun_source_id = ANY($1)`,
      [[young, fresh, full, emptied]],
    );
    expect(new Map(dayAhead.rows.map((row) => [row.id, row.trainedAt]))).toEqual(
      new Map([
        [young, NOW],
        [fresh, daysAgo(29)],
        [full, daysAgo(40)],
        [emptied, daysAgo(32)],
      ]),
    );

    // The failure is noted: the next run leaves that model for 30 days, and has nothing to train.
    const failedAt = await db.query(
      `SELECT sun_source_id AS id, retraining_failed_at AS "failedAt" FROM forecast_models WHERE sun_source_id = ANY($1)`,
      [[young, emptied]],
    );
    expect(new Map(failedAt.rows.map((row) => [row.id, row.failedAt]))).toEqual(
      new Map([
        [young, null],
        [emptied, NOW],
      ]),
    );
    const again = await first.get(ScheduledPredictions).run();
    expect(again).toMatchObject({ retrained: 0 });
    const retrainedAgain = await retrainings();
    expect([retrainedAgain.stored, retrainedAgain.failed]).toEqual([
      retrainedAfter.stored,
      retrainedAfter.failed,
    ]);
  });

  it('never runs concurrently with itself', async () => {
    const locks = first.get(RedisLocks);
    const token = await locks.acquire('jobs:predict:running', 60_000);
    try {
      expect(await second.get(JobRunner).run('predict')).toEqual({
        job: 'predict',
        status: 'skipped',
        reason: 'already running',
      });
    } finally {
      await locks.release('jobs:predict:running', token!);
    }
  });
});
