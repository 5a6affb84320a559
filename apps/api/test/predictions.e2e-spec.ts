import { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  clearSkyGhi,
  DailyForecastPoint,
  ForecastInput,
  ForecastWithPhysics,
  HourlyForecastPoint,
  TrainedModel,
  TrainingInput,
} from '@solar/forecast';
import { InProcessForecastCompute, PredictionJobView } from '@solar/predictions';
import { REDIS } from '@solar/redis';
import { seedFromText, syntheticSeries } from '@solar/synthetic';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  Http,
  insertTelemetryHistory,
  signUp,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { createSchedulerApp } from '../../scheduler/src/create-scheduler-app';
import { startApi } from './support/api-harness';

jest.setTimeout(30_000);

/** Noon in Berlin's summer: the synthetic history ends here and the forecasts start here. */
const NOW = new Date('2026-06-10T10:00:00Z');
const BERLIN = { latitude: 52.52, longitude: 13.4 };
/** A place whose weather provider fails. */
const STORMY = { latitude: 47.07, longitude: 15.44 };
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const NOT_FOUND = { message: 'Sun source not found' };
const JOB_NOT_FOUND = { message: 'Job not found' };

type Body = Record<string, unknown>;
type JobStatus = PredictionJobView & { metrics: Record<string, number> | null };
type CreatedSource = { id: string; connectionDetails: { webhookSecret: string } };
type StoredForecast = { predictions: HourlyForecastPoint[]; daily: DailyForecastPoint[] };
type RoiDay = { date: string; energyProducedKwh: number; isPrediction: boolean };

/**
 * The model in-process (Jest runs TypeScript, which a bare worker thread cannot load; the thread
 * itself is tested in the scheduler's suite), with a gate a test can close to hold a job in
 * `running`.
 */
class GatedCompute extends InProcessForecastCompute {
  private gate?: Promise<void>;

  hold(): () => void {
    let open!: () => void;
    this.gate = new Promise((resolve) => (open = resolve));
    return () => {
      this.gate = undefined;
      open();
    };
  }

  override async train(input: TrainingInput): Promise<TrainedModel> {
    await this.gate;
    return super.train(input);
  }

  override async forecast(input: ForecastInput): Promise<ForecastWithPhysics> {
    await this.gate;
    return super.forecast(input);
  }
}

/** A trained model's `servedModel`: each part learned or baseline, and the orientation's source. */
const SERVED_MODEL = expect.objectContaining({
  solar: expect.stringMatching(/^(learned|baseline)$/),
  solarWithoutWeather: expect.stringMatching(/^(learned|baseline)$/),
  load: expect.stringMatching(/^(learned|baseline)$/),
  orientation: {
    tilt: expect.any(Number),
    azimuth: expect.any(Number),
    source: expect.stringMatching(/^(fitted|assumed)$/),
  },
});

describe('predictions /api/predictions', () => {
  const clock = new FakeClock(NOW);
  const compute = new GatedCompute();
  const weather = new FakeOpenMeteo({ firstDate: '2026-06-10', utcOffsetSeconds: 7200 });
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let redis: Redis;
  /** The scheduler app, whose queue worker runs the jobs; absent while "down". */
  let scheduler: INestApplication | undefined;
  let owner: string;
  let stranger: { cookie: string };
  /** 30 days of synthetic history. */
  let roof: string;
  /** A few readings, no model: too little to train, enough for the physics baseline. */
  let shed: string;

  const startWorker = async () => {
    scheduler = await createSchedulerApp(env.configWith({}), { clock, forecastCompute: compute });
  };

  beforeAll(async () => {
    await weather.start();
    weather.answerWith('http-500', { latitude: STORMY.latitude });
    env = await createTestEnvironment({ WEATHER_API_URL: weather.url });
    ({ app, http } = await startApi(env.config, clock));
    redis = app.get<Redis>(REDIS);
    [owner, stranger] = await Promise.all([
      signUp(http, env.mail).then((user) => user.cookie),
      signUp(http, env.mail),
    ]);
    roof = (await createSource({ name: 'Roof', ...BERLIN, installedCapacityWatts: 5000 })).id;
    await writeHistory(roof);
    const created = await createSource({ name: 'Shed', ...BERLIN, connectionType: 'Webhook' });
    shed = created.id;
    const secret = created.connectionDetails.webhookSecret;
    for (const hoursAgo of [1, 2, 3]) {
      await http
        .post(`/api/webhook/sunsource/${shed}`)
        .send({
          key: secret,
          timestamp: new Date(NOW.getTime() - hoursAgo * HOUR_MS).toISOString(),
          solarPower: 900,
        })
        .expect(200);
    }
  }, 60_000);

  afterAll(async () => {
    await scheduler?.close();
    await app.close();
    await env.teardown();
    await weather.stop();
  });

  /** `days` of hourly readings from the synthetic device, up to now. */
  async function writeHistory(sunSourceId: string, days = 30): Promise<void> {
    const readings = syntheticSeries({
      ...BERLIN,
      capacityWatts: 5000,
      seed: seedFromText(sunSourceId),
      start: new Date(NOW.getTime() - days * DAY_MS),
      end: new Date(NOW.getTime() - HOUR_MS),
      stepMinutes: 60,
    });
    const db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    try {
      await insertTelemetryHistory(db, sunSourceId, readings);
    } finally {
      await db.end();
    }
  }

  async function createSource(fields: Body): Promise<CreatedSource> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', owner)
      .send({ connectionType: 'MQTT', ...fields })
      .expect(201);
    return created.body;
  }

  const start = (type: 'train' | 'predict', sunSourceId: string, cookie = owner) =>
    http.post(`/api/predictions/${type}`).set('Cookie', cookie).send({ sunSourceId });

  const status = async (jobId: string): Promise<JobStatus> =>
    (await http.get(`/api/predictions/status/${jobId}`).set('Cookie', owner).expect(200)).body;

  /** Polls the job until it has ended (or `until` holds). */
  async function waitForJob(
    jobId: string,
    until = (job: JobStatus) => ['completed', 'failed'].includes(job.status),
  ): Promise<JobStatus> {
    let job!: JobStatus;
    await waitFor(async () => until((job = await status(jobId))), `job ${jobId}`, 25_000);
    return job;
  }

  const latest = async (sunSourceId: string, cookie = owner) =>
    (await http.get(`/api/predictions/latest/${sunSourceId}`).set('Cookie', cookie).expect(200)).body;

  describe('asking', () => {
    it('needs a session', async () => {
      await http.post('/api/predictions/train').send({ sunSourceId: roof }).expect(401);
      await http.post('/api/predictions/predict').send({ sunSourceId: roof }).expect(401);
      await http.get('/api/predictions/status/train_00000000_1').expect(401);
      await http.get(`/api/predictions/latest/${roof}`).expect(401);
      await http.get(`/api/predictions/model-info/${roof}`).expect(401);
    });

    it.each([
      ['no source id', {}],
      ['an id that is not one', { sunSourceId: 'roof' }],
      ['an unknown property', { sunSourceId: '7d444840-9dc0-41d1-b245-5ffdce74fad2', force: true }],
    ])('refuses %s with 400 { errors }', async (_case, body) => {
      for (const type of ['train', 'predict']) {
        const response = await http
          .post(`/api/predictions/${type}`)
          .set('Cookie', owner)
          .send(body)
          .expect(400);
        expect(Object.keys(response.body)).toEqual(['errors']);
      }
    });

    it('answers 404 for another user’s source and for one that does not exist', async () => {
      for (const type of ['train', 'predict'] as const) {
        expect((await start(type, roof, stranger.cookie).expect(404)).body).toEqual(NOT_FOUND);
        expect((await start(type, '7d444840-9dc0-41d1-b245-5ffdce74fad2').expect(404)).body).toEqual(
          NOT_FOUND,
        );
      }
      for (const path of ['latest', 'model-info']) {
        const response = await http.get(`/api/predictions/${path}/${roof}`).set('Cookie', stranger.cookie);
        expect([path, response.status, response.body]).toEqual([path, 404, NOT_FOUND]);
      }
    });

    it('answers 400 for a source without coordinates', async () => {
      const nowhere = (await createSource({ name: 'Nowhere' })).id;
      for (const type of ['train', 'predict'] as const) {
        expect((await start(type, nowhere).expect(400)).body).toEqual({
          message: 'Source needs latitude and longitude',
        });
      }
    });

    it('has no forecast and no model before the first job', async () => {
      expect(await latest(roof)).toEqual({ exists: false, data: null });
      expect(
        (await http.get(`/api/predictions/model-info/${roof}`).set('Cookie', owner).expect(200)).body,
      ).toEqual({ exists: false, data: null });
    });
  });

  describe('jobs', () => {
    let trainId: string;
    let predictId: string;

    it('queues while no worker runs, one active job per source and type', async () => {
      const trained = await start('train', roof).expect(200);
      expect(trained.body).toEqual({
        jobId: `train_${roof.replace(/-/g, '').slice(0, 8)}_${NOW.getTime() / 1000}`,
        status: 'queued',
        predictions: null,
        metrics: null,
        error: null,
      });
      trainId = trained.body.jobId;
      expect((await start('train', roof).expect(200)).body).toEqual({
        jobId: trainId,
        status: 'already_running',
        predictions: null,
        metrics: null,
        error: null,
      });
      // The other type has a guard of its own.
      predictId = (await start('predict', roof).expect(200)).body.jobId;
      expect(predictId).toMatch(/^predict_[0-9a-f]{8}_\d+$/);
      expect((await start('predict', roof).expect(200)).body).toMatchObject({
        jobId: predictId,
        status: 'already_running',
      });

      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await status(trainId)).toEqual({
        jobId: trainId,
        status: 'queued',
        progress: 0,
        message: expect.any(String),
        error: null,
        type: 'train',
        sunSourceId: roof,
        updatedAt: NOW.toISOString(),
        metrics: null,
        predictions: null,
        dataPointsUsed: 0,
        modelMetrics: {},
        servedModel: null,
      });
    });

    it('keeps job records 24 hours and active markers 30 (train) and 10 (predict) minutes', async () => {
      const within = async (key: string, maxMs: number) => {
        const ttl = await redis.pttl(key);
        expect([key, ttl > maxMs - 60_000 && ttl <= maxMs]).toEqual([key, true]);
      };
      await within(`prediction-jobs:${trainId}`, DAY_MS);
      await within(`prediction-jobs:${predictId}`, DAY_MS);
      await within(`prediction-active:train:${roof}`, 30 * 60_000);
      await within(`prediction-active:predict:${roof}`, 10 * 60_000);
      expect(await redis.get(`prediction-active:train:${roof}`)).toBe(trainId);
    });

    it('runs the waiting jobs when a worker starts: queued → running → completed', async () => {
      const release = compute.hold();
      try {
        await startWorker();
        const running = await waitForJob(trainId, (job) => job.status !== 'queued');
        expect(running).toMatchObject({ status: 'running', error: null, message: expect.any(String) });
        expect(running.progress).toBeGreaterThan(0);
        expect(running.progress).toBeLessThan(100);
      } finally {
        release();
      }
      const trained = await waitForJob(trainId);
      expect(trained).toMatchObject({
        status: 'completed',
        progress: 100,
        error: null,
        predictions: null,
        metrics: {
          mae: expect.any(Number),
          rmse: expect.any(Number),
          r2: expect.any(Number),
          solar_mae: expect.any(Number),
          load_mae: expect.any(Number),
        },
      });
      expect(trained.modelMetrics).toEqual(trained.metrics);
      // Which model is live: each part learned or baseline, as the hold-out decided.
      expect(trained.servedModel).toEqual(SERVED_MODEL);
      // 30 days of hourly readings, or fewer (the model may leave some hours out).
      expect(trained.dataPointsUsed).toBeGreaterThanOrEqual(600);
      expect(trained.dataPointsUsed).toBeLessThanOrEqual(720);

      const predicted = await waitForJob(predictId);
      expect(predicted).toMatchObject({ status: 'completed', progress: 100, error: null, metrics: null });
      expect(predicted.predictions).toHaveLength(168);
      expect(predicted.modelMetrics).toEqual(trained.metrics);
      expect(predicted.servedModel).toEqual(trained.servedModel);

      // Weather was fetched first, since none was stored.
      expect(weather.requestsFor(BERLIN.latitude).length).toBeGreaterThan(0);
    });

    it('releases the markers when a job ends: the next one is queued, not already running', async () => {
      expect(await redis.exists(`prediction-active:train:${roof}`, `prediction-active:predict:${roof}`)).toBe(
        0,
      );
      const again = await start('train', roof).expect(200);
      expect(again.body).toMatchObject({ status: 'queued' });
      expect(again.body.jobId).not.toBe(trainId);
      expect(await waitForJob(again.body.jobId)).toMatchObject({ status: 'completed' });
      // The record lives on for 24 hours after its last change.
      expect(await redis.pttl(`prediction-jobs:${again.body.jobId}`)).toBeGreaterThan(DAY_MS - 60_000);
    });

    it('stores the model: model info', async () => {
      const trained = await status(trainId);
      const info = (await http.get(`/api/predictions/model-info/${roof}`).set('Cookie', owner).expect(200))
        .body;
      expect(info).toEqual({
        exists: true,
        data: {
          trainedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          dataPointsUsed: trained.dataPointsUsed,
          metrics: expect.objectContaining({
            mae: expect.any(Number),
            rmse: expect.any(Number),
            r2: expect.any(Number),
          }),
          servedModel: trained.servedModel,
        },
      });
    });

    it('stores the forecast: 168 hours and 7 days, bounded and physically consistent', async () => {
      const body = await latest(roof);
      expect(body).toEqual({
        exists: true,
        data: {
          predictions: (await status(predictId)).predictions,
          daily: expect.any(Array),
          createdAt: expect.stringMatching(/Z$/),
          jobId: predictId,
        },
      });
      expectPhysicallyConsistent(body.data, BERLIN);
      // Midsummer in Berlin from a 5 kW array: every day yields something, no day the impossible.
      for (const day of body.data.daily) {
        expect(day.solarProductionKwh).toBeGreaterThan(0);
        expect(day.solarProductionKwh).toBeLessThan(5 * 24);
      }
    });

    it('feeds the forecast days of the ROI calculation', async () => {
      const { data } = await latest(roof);
      const roi = (await http.get(`/api/roi/${roof}/calculate`).set('Cookie', owner).expect(200)).body;
      const forecastDays = (roi.dailyBreakdown as RoiDay[]).filter((day) => day.isPrediction);
      expect(forecastDays.length).toBeGreaterThan(0);
      for (const day of forecastDays) {
        const point = (data as StoredForecast).daily.find((candidate) => day.date.startsWith(candidate.date));
        expect(day.energyProducedKwh).toBeCloseTo(point!.solarProductionKwh, 2);
      }
    });

    it('forecasts from solar physics alone for a source never trained', async () => {
      const { jobId } = (await start('predict', shed).expect(200)).body;
      const job = await waitForJob(jobId);
      expect(job).toMatchObject({ status: 'completed', error: null, modelMetrics: {}, servedModel: null });
      expect(job.predictions).toHaveLength(168);
      expectPhysicallyConsistent((await latest(shed)).data, BERLIN);
    });

    it('trains on the array as its owner installed it, and says so', async () => {
      const installed = { tilt: 40, azimuth: 200 };
      const barn = (await createSource({ name: 'Barn', ...BERLIN, orientation: installed })).id;
      await writeHistory(barn);
      const { jobId } = (await start('train', barn).expect(200)).body;
      const trained = await waitForJob(jobId);
      expect(trained.servedModel).toMatchObject({ orientation: { ...installed, source: 'installed' } });
      const info = (await http.get(`/api/predictions/model-info/${barn}`).set('Cookie', owner).expect(200))
        .body;
      expect(info.data.servedModel).toEqual(trained.servedModel);
    });

    it('forecasts an untrained source’s physics on its installed array', async () => {
      // A north-facing wall in Berlin's summer: the sky and the morning and evening sun, far less than a roof.
      const wall = (await createSource({ name: 'Wall', ...BERLIN, orientation: { tilt: 90, azimuth: 0 } }))
        .id;
      const { jobId } = (await start('predict', wall).expect(200)).body;
      expect(await waitForJob(jobId)).toMatchObject({ status: 'completed', servedModel: null });
      const energy = async (sunSourceId: string) =>
        ((await latest(sunSourceId)).data as StoredForecast).daily.reduce(
          (sum, day) => sum + day.solarProductionKwh,
          0,
        );
      expect(await energy(wall)).toBeGreaterThan(0);
      expect(await energy(wall)).toBeLessThan(0.6 * (await energy(shed)));
    });

    it('learns from the last year of history, no more', async () => {
      const farm = (await createSource({ name: 'Farm', ...BERLIN, installedCapacityWatts: 8000 })).id;
      await writeHistory(farm, 400);
      const { jobId } = (await start('train', farm).expect(200)).body;
      // Every hour of the 365 days before now has a reading; the 35 days before them are left out.
      expect(await waitForJob(jobId)).toMatchObject({ status: 'completed', dataPointsUsed: 365 * 24 });
    });

    it('fails a training on too little data, says why, and frees the source for the next one', async () => {
      const { jobId } = (await start('train', shed).expect(200)).body;
      expect(await waitForJob(jobId)).toMatchObject({
        status: 'failed',
        error: 'Not enough data to train: 3 hourly points, at least 48 needed',
        metrics: null,
        predictions: null,
      });
      expect(await redis.exists(`prediction-active:train:${shed}`)).toBe(0);
      const again = (await start('train', shed).expect(200)).body;
      expect(again).toMatchObject({ status: 'queued' });
      expect(again.jobId).not.toBe(jobId);
      expect(await waitForJob(again.jobId)).toMatchObject({ status: 'failed' });
      expect((await http.get(`/api/predictions/model-info/${shed}`).set('Cookie', owner)).body).toEqual({
        exists: false,
        data: null,
      });
    });

    it('goes on without weather when the weather provider fails', async () => {
      const stormy = (await createSource({ name: 'Stormy', ...STORMY })).id;
      const { jobId } = (await start('predict', stormy).expect(200)).body;
      expect(await waitForJob(jobId)).toMatchObject({ status: 'completed', error: null });
      expect(weather.requestsFor(STORMY.latitude).length).toBeGreaterThan(0);
      expectPhysicallyConsistent((await latest(stormy)).data, STORMY);
    });

    it('answers 404 Job not found for an unknown job and for another user’s', async () => {
      for (const jobId of ['train_deadbeef_1781085600', 'no such job']) {
        const response = await http
          .get(`/api/predictions/status/${encodeURIComponent(jobId)}`)
          .set('Cookie', owner);
        expect([jobId, response.status, response.body]).toEqual([jobId, 404, JOB_NOT_FOUND]);
      }
      const foreign = await http.get(`/api/predictions/status/${trainId}`).set('Cookie', stranger.cookie);
      expect([foreign.status, foreign.body]).toEqual([404, JOB_NOT_FOUND]);
      expect(await latest(roof, owner)).toMatchObject({ exists: true });
    });
  });
});

/**
 * A forecast has 168 consecutive hours and 7 days; no sun, no solar
 * power; state of charge within 0-100 %; energies that are the powers over an hour; days that
 * are the sums of their hours.
 */
function expectPhysicallyConsistent(
  data: StoredForecast,
  place: { latitude: number; longitude: number },
): void {
  const { predictions, daily } = data;
  expect(predictions).toHaveLength(168);
  expect(daily).toHaveLength(7);
  const times = predictions.map((point) => Date.parse(point.timestamp));
  expect(times.slice(1).map((time, index) => time - times[index])).toEqual(Array(167).fill(HOUR_MS));
  expect(times[0] % HOUR_MS).toBe(0);

  const problems: string[] = [];
  for (const point of predictions) {
    const at = Date.parse(point.timestamp);
    const values = [
      point.solarPower,
      point.loadPower,
      point.stateOfCharge,
      point.energyProduced,
      point.energyConsumed,
    ];
    if (!values.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      problems.push(`${point.timestamp}: not a number`);
    }
    if (point.solarPower < 0 || point.loadPower < 0) problems.push(`${point.timestamp}: negative power`);
    if (point.stateOfCharge < 0 || point.stateOfCharge > 100)
      problems.push(`${point.timestamp}: SoC out of range`);
    const dark = [0, 0.5, 1].every(
      (fraction) => clearSkyGhi(new Date(at + fraction * HOUR_MS), place.latitude, place.longitude) === 0,
    );
    if (dark && point.solarPower !== 0) problems.push(`${point.timestamp}: ${point.solarPower} W at night`);
    if (Math.abs(point.energyProduced - point.solarPower / 1000) > 0.001) {
      problems.push(`${point.timestamp}: energyProduced is not solarPower over the hour`);
    }
    if (Math.abs(point.energyConsumed - point.loadPower / 1000) > 0.001) {
      problems.push(`${point.timestamp}: energyConsumed is not loadPower over the hour`);
    }
  }
  for (const day of daily) {
    const hours = predictions.filter((point) => point.timestamp.startsWith(day.date));
    const produced = hours.reduce((sum, point) => sum + point.energyProduced, 0);
    const consumed = hours.reduce((sum, point) => sum + point.energyConsumed, 0);
    if (
      Math.abs(produced - day.solarProductionKwh) > 0.01 ||
      Math.abs(consumed - day.loadConsumptionKwh) > 0.01
    ) {
      problems.push(`${day.date}: the day is not the sum of its hours`);
    }
  }
  expect(problems).toEqual([]);
}
