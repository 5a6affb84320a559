import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { DayAheadHour } from '@solar/forecast';
import { InProcessForecastCompute, PredictionJobView } from '@solar/predictions';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  Http,
  logIn,
  signUp,
  TestEnvironment,
  uniqueEmail,
  waitFor,
} from '@solar/testing';
import { createSchedulerApp } from '../../scheduler/src/create-scheduler-app';
import { JobRunner } from '../../scheduler/src/jobs/job-runner';
import { startApi } from './support/api-harness';
import { configureSharing, SharingFlags } from './support/shared-installation';

jest.setTimeout(60_000);

/** Evening in Berlin: each forecast issued now is the day-ahead forecast of tomorrow (UTC). */
const NOW = new Date('2026-06-10T18:40:00Z');
const BERLIN = { latitude: 52.52, longitude: 13.4 };
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const ADMIN_PASSWORD = 'Root-Pass-2026';
const NOT_FOUND = { message: 'Sun source not found' };
const NOT_SHARED = { message: 'Not found' };

type Score = {
  solar: { hours: number; rmseW: number; maeW: number; nrmse: number | null; nmae: number | null } | null;
  load: { hours: number; rmseW: number; maeW: number; skillVsProfile: number | null } | null;
  battery: { hours: number; socMae: number } | null;
  skill: { vsSmartPersistence: number | null; vsPhysics: number | null };
};
type Accuracy = {
  daysScored: number;
  days: Array<Score & { date: string; issuedAt: string; model: string; modelTrainedAt: string | null }>;
  overall: Score;
} & Record<string, unknown>;

describe('forecast accuracy /api/predictions/{id}/accuracy', () => {
  const clock = new FakeClock(NOW);
  const weather = new FakeOpenMeteo({ firstDate: '2026-06-10', utcOffsetSeconds: 7200 });
  const adminEmail = uniqueEmail('root');
  let env: TestEnvironment;
  let app: INestApplication;
  let scheduler: INestApplication;
  let http: Http;
  let db: Client;
  let admin: string;
  let keeper: string;
  let stranger: string;

  beforeAll(async () => {
    await weather.start();
    env = await createTestEnvironment({
      WEATHER_API_URL: weather.url,
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD,
    });
    ({ app, http } = await startApi(env.config, clock));
    scheduler = await createSchedulerApp(env.configWith({}), {
      clock,
      forecastCompute: new InProcessForecastCompute(),
    });
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    admin = await logIn(http, adminEmail, ADMIN_PASSWORD);
    [keeper, stranger] = (await Promise.all([signUp(http, env.mail), signUp(http, env.mail)])).map(
      (user) => user.cookie,
    );
  }, 60_000);

  afterAll(async () => {
    await db.end();
    await scheduler.close();
    await app.close();
    await env.teardown();
    await weather.stop();
  });

  async function createSource(cookie: string, fields: object): Promise<string> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'Roof', connectionType: 'MQTT', ...fields })
      .expect(201);
    return created.body.id as string;
  }

  const accuracy = (id: string, cookie: string, query = '') =>
    http.get(`/api/predictions/${id}/accuracy${query}`).set('Cookie', cookie);

  describe('known forecasts and measurements', () => {
    /** Daytime 06:00–17:59 UTC under a flat 1,000 W clear sky, so every figure adds up by hand. */
    const daytime = (hour: number) => hour >= 6 && hour < 18;
    const clearSky = Array.from({ length: 24 }, (_, hour) => (daytime(hour) ? 1000 : 0));
    let id: string;

    async function keepForecast(date: string, model: string, solar: (hour: number) => number) {
      const hours: DayAheadHour[] = clearSky.map((clearSkyPower, hour) => ({
        solarPower: solar(hour),
        loadPower: 500,
        stateOfCharge: 60,
        physicsSolarPower: daytime(hour) ? 1000 : 0,
        physicsLoadPower: 700,
        clearSkyPower,
        daytime: daytime(hour),
      }));
      await db.query(
        `INSERT INTO day_ahead_forecasts
                (sun_source_id, date, issued_at, job_id, model, model_trained_at, hours, previous_day_clear_sky)
         VALUES ($1, $2, $2::date - interval '5 hours', 'predict_x_1', $3,
                 CASE WHEN $3 = 'physics' THEN NULL ELSE $2::date - interval '3 days' END, $4, $5)`,
        [id, date, model, JSON.stringify(hours), JSON.stringify(clearSky)],
      );
    }

    /** One reading at half past each hour of the day, then the hourly rollup recounted. */
    async function measure(
      date: string,
      reading: (hour: number) => { solar: number; load: number | null; soc: number | null },
    ) {
      const start = Date.parse(`${date}T00:00:00Z`);
      const hours = Array.from({ length: 24 }, (_, hour) => hour);
      await db.query(
        `INSERT INTO telemetry (sun_source_id, ts, solar_power, load_power, state_of_charge, raw)
         SELECT $1, r.ts, r.solar, r.load, r.soc, '{}'::jsonb
           FROM unnest($2::timestamptz[], $3::float8[], $4::float8[], $5::float8[]) AS r (ts, solar, load, soc)`,
        [
          id,
          hours.map((hour) => new Date(start + hour * HOUR_MS + 30 * 60_000)),
          hours.map((hour) => reading(hour).solar),
          hours.map((hour) => reading(hour).load),
          hours.map((hour) => reading(hour).soc),
        ],
      );
      await db.query(`SELECT rebuild_telemetry_hourly($1, $2, $3)`, [
        id,
        new Date(start),
        new Date(start + DAY_MS),
      ]);
    }

    beforeAll(async () => {
      id = await createSource(keeper, { installedCapacityWatts: 5000 });
      await db.query(`SELECT ensure_telemetry_partition('2026-06-01'::date)`);
      // 7 June: half the clear sky. 8 June: 800 W in the morning, 400 W after. 9 June: 600 W.
      await measure('2026-06-07', (hour) => ({ solar: daytime(hour) ? 500 : 0, load: null, soc: null }));
      await measure('2026-06-08', (hour) => ({
        solar: daytime(hour) ? (hour < 12 ? 800 : 400) : 0,
        load: 400,
        soc: hour < 12 ? 50 : 65,
      }));
      await measure('2026-06-09', (hour) => ({ solar: daytime(hour) ? 600 : 0, load: 400, soc: 60 }));
      // Right in the morning and 100 W high after; then exactly right (as is smart persistence).
      await keepForecast('2026-06-08', 'learned', (hour) => (daytime(hour) ? (hour < 12 ? 800 : 500) : 0));
      await keepForecast('2026-06-09', 'physics', (hour) => (daytime(hour) ? 600 : 0));
      // Today's forecast: the day is not over, so it is not scored.
      await keepForecast('2026-06-10', 'learned', () => 0);
    });

    it('scores each day and all of them, with the definitions of docs/forecast-accuracy.md', async () => {
      const response = await accuracy(id, keeper).expect(200);
      expect(response.body).toEqual({
        sunSourceId: id,
        from: '2026-05-11',
        to: '2026-06-09',
        daysScored: 2,
        normalizedBy: 'capacity',
        capacityWatts: 5000,
        model: { live: 'physics', trainedAt: null },
        days: [
          {
            date: '2026-06-08',
            issuedAt: '2026-06-07T19:00:00.000Z',
            model: 'learned',
            modelTrainedAt: '2026-06-05T00:00:00.000Z',
            // Errors 0 W and +100 W; smart persistence 500 W (−300, +100); physics 1,000 W (+200, +600).
            solar: { hours: 12, rmseW: 70.7, maeW: 50, nrmse: 0.0141, nmae: 0.01 },
            load: { hours: 24, rmseW: 100, maeW: 100, skillVsProfile: 0.6667 },
            battery: { hours: 24, socMae: 7.5 },
            skill: { vsSmartPersistence: 0.6838, vsPhysics: 0.8419 },
          },
          {
            date: '2026-06-09',
            issuedAt: '2026-06-08T19:00:00.000Z',
            model: 'physics',
            modelTrainedAt: null,
            solar: { hours: 12, rmseW: 0, maeW: 0, nrmse: 0, nmae: 0 },
            load: { hours: 24, rmseW: 100, maeW: 100, skillVsProfile: 0.6667 },
            battery: { hours: 24, socMae: 0 },
            // Smart persistence (the 8th's index, 0.6) was perfect too: nothing to beat.
            skill: { vsSmartPersistence: null, vsPhysics: 1 },
          },
        ],
        overall: {
          solar: { hours: 24, rmseW: 50, maeW: 25, nrmse: 0.01, nmae: 0.005 },
          load: { hours: 48, rmseW: 100, maeW: 100, skillVsProfile: 0.6667 },
          battery: { hours: 48, socMae: 3.75 },
          // Physics over both days: RMSE √180,000 W.
          skill: { vsSmartPersistence: 0.6838, vsPhysics: 0.8821 },
        },
      });
    });

    it('scores only the days asked for, and in W when the source has no capacity', async () => {
      const yesterday = (await accuracy(id, keeper, '?days=1').expect(200)).body as Accuracy;
      expect([yesterday.from, yesterday.to, yesterday.daysScored]).toEqual(['2026-06-09', '2026-06-09', 1]);
      // Scored on its own, the 9th still persists the 8th's clear-sky index, read from before the window.
      expect(yesterday.days[0].solar).toEqual({ hours: 12, rmseW: 0, maeW: 0, nrmse: 0, nmae: 0 });
      expect(yesterday.overall).toEqual({
        ...yesterday.days[0],
        date: undefined,
        issuedAt: undefined,
        model: undefined,
        modelTrainedAt: undefined,
      });

      await http
        .put(`/api/sunsources/${id}`)
        .set('Cookie', keeper)
        .send({ installedCapacityWatts: null })
        .expect(200);
      const watts = (await accuracy(id, keeper).expect(200)).body as Accuracy;
      expect(watts).toMatchObject({ normalizedBy: 'watts', capacityWatts: null, daysScored: 2 });
      expect(watts.overall.solar).toEqual({ hours: 24, rmseW: 50, maeW: 25, nrmse: null, nmae: null });
      await http
        .put(`/api/sunsources/${id}`)
        .set('Cookie', keeper)
        .send({ installedCapacityWatts: 5000 })
        .expect(200);
    });

    it('answers 404 for another user’s source and for one that does not exist, 401 without a session', async () => {
      expect((await accuracy(id, stranger).expect(404)).body).toEqual(NOT_FOUND);
      expect((await accuracy('7d444840-9dc0-41d1-b245-5ffdce74fad2', keeper).expect(404)).body).toEqual(
        NOT_FOUND,
      );
      await http.get(`/api/predictions/${id}/accuracy`).expect(401);
    });

    it.each(['0', '366', '1.5', 'week', '-3', ''])(
      'refuses days=%s with 400 { errors: { days } }',
      async (days) => {
        const response = await accuracy(id, keeper, `?days=${days}`).expect(400);
        expect(Object.keys(response.body)).toEqual(['errors']);
        expect(Object.keys(response.body.errors)).toEqual(['days']);
      },
    );

    it('refuses an unknown query parameter with 400', async () => {
      const response = await accuracy(id, keeper, '?days=3&model=learned').expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
    });

    const share = (flags: Partial<SharingFlags>) => configureSharing(http, keeper, id, flags);

    it('is public only while the source shares its forecast', async () => {
      const publicPath = `/api/sharing/public/${id}/forecast/accuracy`;
      expect((await http.get(publicPath).expect(404)).body).toEqual(NOT_SHARED);
      await share({ isEnabled: true, shareMonitor: true });
      expect((await http.get(publicPath).expect(404)).body).toEqual(NOT_SHARED);
      await share({ isEnabled: true, shareForecast: true });
      const owners = (await accuracy(id, keeper, '?days=10').expect(200)).body;
      expect((await http.get(`${publicPath}?days=10`).expect(200)).body).toEqual(owners);
      expect((await http.get(`${publicPath}?days=400`).expect(400)).body).toHaveProperty('errors.days');
      await share({ isEnabled: false, shareForecast: true });
      expect((await http.get(publicPath).expect(404)).body).toEqual(NOT_SHARED);
    });

    it('is told in words on the share page, while the source shares its forecast', async () => {
      await share({ isEnabled: true, shareForecast: true });
      const shared = (await http.get(`/share/${id}`).expect(200)).text;
      // The overall figures above: nMAE 0.005 and skill 0.6838 over the 2 days scored of the last 30.
      expect(shared).toContain(
        '<p class="muted" id="forecast-record">Over the last 30 days (2 days scored), the day-ahead forecast ' +
          'was off by 0.5 % of the installed power on average in daylight; its error (RMS) was 68 % smaller ' +
          'than that of repeating yesterday’s cloudiness.</p>',
      );
      await share({ isEnabled: true, shareMonitor: true });
      const monitorOnly = (await http.get(`/share/${id}`).expect(200)).text;
      expect(monitorOnly).toContain('id="now-title"');
      expect(monitorOnly).not.toContain('forecast-record');
      await share({ isEnabled: false });
      await http.get(`/share/${id}`).expect(404);
    });
  });

  describe('after a few simulated days (debug generator and the scheduled prediction job)', () => {
    let id: string;
    const issued: string[] = [];
    /**
     * What training chose to serve: the synthetic source is seeded by its id, so on rare seeds
     * every part loses to its baseline on the hold-out, and then the baseline is what is kept.
     */
    let served: 'learned' | 'baseline';

    const generate = async () => {
      const response = await http
        .post(`/api/sunsourcedata/debug/generate/${id}`)
        .set('Cookie', admin)
        .expect(200);
      expect(response.body.generated).toBeGreaterThan(0);
    };

    async function waitForJob(jobId: string): Promise<PredictionJobView> {
      let job!: PredictionJobView;
      await waitFor(
        async () => {
          job = (await http.get(`/api/predictions/status/${jobId}`).set('Cookie', admin).expect(200)).body;
          return job.status === 'completed' || job.status === 'failed';
        },
        `job ${jobId}`,
        40_000,
      );
      return job;
    }

    beforeAll(async () => {
      id = await createSource(admin, { ...BERLIN, installedCapacityWatts: 5000 });
      await http.post('/api/settings/1').set('Cookie', admin).send({ value: '1' }).expect(200);
      await generate();
      const train = await http
        .post('/api/predictions/train')
        .set('Cookie', admin)
        .send({ sunSourceId: id })
        .expect(200);
      const trained = await waitForJob(train.body.jobId);
      expect(trained).toMatchObject({ status: 'completed', type: 'train' });
      const { solar, solarWithoutWeather, load } = trained.servedModel!;
      served = [solar, solarWithoutWeather, load].includes('learned') ? 'learned' : 'baseline';
      // Four evenings: each scheduled run forecasts tomorrow; then a day passes and is measured.
      for (let day = 0; day < 4; day++) {
        const report = await scheduler.get(JobRunner).run('predict', clock.now());
        expect(report).toMatchObject({ status: 'completed', counts: { predicted: 1, failed: 0 } });
        issued.push(clock.now().toISOString());
        clock.advance(DAY_MS);
        await generate();
      }
    }, 180_000);

    it('keeps one day-ahead forecast per day, from the model training chose to serve', async () => {
      const kept = await db.query(
        `SELECT to_char(date, 'YYYY-MM-DD') AS date, issued_at, model, jsonb_array_length(hours) AS hours
           FROM day_ahead_forecasts WHERE sun_source_id = $1 ORDER BY date`,
        [id],
      );
      expect(kept.rows).toEqual(
        ['2026-06-11', '2026-06-12', '2026-06-13', '2026-06-14'].map((date, index) => ({
          date,
          issued_at: new Date(issued[index]),
          model: served,
          hours: 24,
        })),
      );
    });

    it('scores the three measured days with the numbers the stored data gives', async () => {
      const body = (await accuracy(id, admin, '?days=7').expect(200)).body as Accuracy;
      expect(body).toMatchObject({
        sunSourceId: id,
        from: '2026-06-07',
        to: '2026-06-13',
        daysScored: 3,
        normalizedBy: 'capacity',
        capacityWatts: 5000,
        model: { live: served, trainedAt: NOW.toISOString() },
      });
      const trainedAt = NOW.toISOString();
      expect(body.days.map((day) => [day.date, day.issuedAt, day.model, day.modelTrainedAt])).toEqual([
        ['2026-06-11', issued[0], served, trainedAt],
        ['2026-06-12', issued[1], served, trainedAt],
        ['2026-06-13', issued[2], served, trainedAt],
      ]);

      // Recomputed here from the raw readings and the kept forecasts.
      const expected = await recompute(['2026-06-11', '2026-06-12', '2026-06-13']);
      body.days.forEach((day, index) => {
        const want = expected.days[index];
        expect(day.solar!.hours).toBe(want.solarHours);
        expect(day.solar!.rmseW).toBeCloseTo(want.solarRmse, 1);
        expect(day.solar!.nrmse).toBeCloseTo(want.solarRmse / 5000, 4);
        expect(day.load!.rmseW).toBeCloseTo(want.loadRmse, 1);
        expect(day.battery!.socMae).toBeCloseTo(want.socMae, 2);
        expect(day.skill.vsSmartPersistence).toBeCloseTo(1 - want.solarRmse / want.persistenceRmse, 3);
        expect(day.skill.vsPhysics).toBeCloseTo(1 - want.solarRmse / want.physicsRmse, 3);
      });
      expect(body.overall.solar!.hours).toBe(expected.days.reduce((sum, day) => sum + day.solarHours, 0));
      expect(body.overall.solar!.rmseW).toBeCloseTo(expected.overallSolarRmse, 1);
      // A learned model on the synthetic device: some error, far below the capacity.
      expect(body.overall.solar!.nrmse).toBeGreaterThan(0);
      expect(body.overall.solar!.nrmse).toBeLessThan(0.5);
    });

    it('says which model the next forecast really serves: physics for a model it cannot read', async () => {
      const live = async () => ((await accuracy(id, admin, '?days=7').expect(200)).body as Accuracy).model;
      const stored = (await db.query(`SELECT model FROM forecast_models WHERE sun_source_id = $1`, [id]))
        .rows[0].model;
      const store = (model: object) =>
        db.query(`UPDATE forecast_models SET model = $2::jsonb WHERE sun_source_id = $1`, [
          id,
          JSON.stringify(model),
        ]);
      try {
        // A model of version 1 (before the hold-out chose what is served): the forecast cannot read it.
        const { servedModel: _, ...withoutServed } = stored;
        await store({ ...withoutServed, version: 1 });
        expect(await live()).toEqual({ live: 'physics', trainedAt: null });
        // Trees for no part: the baseline is served, whatever the record says of itself.
        const models = Object.fromEntries(Object.keys(stored.payload.models).map((set) => [set, null]));
        await store({ ...stored, payload: { ...stored.payload, models } });
        expect(await live()).toEqual({ live: 'baseline', trainedAt: NOW.toISOString() });
      } finally {
        await store(stored);
      }
      expect(await live()).toEqual({ live: served, trainedAt: NOW.toISOString() });
    });

    /** RMSEs and MAE computed from `telemetry` (hour means) and the kept rows, without the scoring code. */
    async function recompute(dates: string[]) {
      const kept = new Map<string, { hours: DayAheadHour[]; previous: number[] }>(
        (
          await db.query(
            `SELECT to_char(date, 'YYYY-MM-DD') AS date, hours, previous_day_clear_sky AS previous
               FROM day_ahead_forecasts WHERE sun_source_id = $1`,
            [id],
          )
        ).rows.map((row) => [row.date, row]),
      );
      const measured = new Map<number, { solar: number; load: number; soc: number }>(
        (
          await db.query(
            `SELECT date_trunc('hour', ts, 'UTC') AS hour, avg(solar_power) AS solar, avg(load_power) AS load,
                    avg(state_of_charge) AS soc
               FROM telemetry WHERE sun_source_id = $1 GROUP BY 1`,
            [id],
          )
        ).rows.map((row) => [row.hour.getTime(), { solar: row.solar, load: row.load, soc: row.soc }]),
      );
      const rms = (errors: number[]) => Math.sqrt(errors.reduce((sum, e) => sum + e * e, 0) / errors.length);
      const allSolar: number[] = [];
      const days = dates.map((date) => {
        const start = Date.parse(`${date}T00:00:00Z`);
        const { hours, previous } = kept.get(date)!;
        let produced = 0;
        let possible = 0;
        previous.forEach((clear, hour) => {
          if (!(clear > 0)) return;
          produced += Math.max(0, measured.get(start - DAY_MS + hour * HOUR_MS)!.solar);
          possible += clear;
        });
        const index = Math.min(1.5, produced / possible);
        const solar: number[] = [];
        const persistence: number[] = [];
        const physics: number[] = [];
        const load: number[] = [];
        const soc: number[] = [];
        hours.forEach((forecast, hour) => {
          const actual = measured.get(start + hour * HOUR_MS)!;
          load.push(forecast.loadPower - actual.load);
          soc.push(Math.abs(forecast.stateOfCharge - actual.soc));
          if (!forecast.daytime) return;
          solar.push(forecast.solarPower - actual.solar);
          persistence.push(index * forecast.clearSkyPower - actual.solar);
          physics.push(forecast.physicsSolarPower - actual.solar);
        });
        allSolar.push(...solar);
        return {
          solarHours: solar.length,
          solarRmse: rms(solar),
          persistenceRmse: rms(persistence),
          physicsRmse: rms(physics),
          loadRmse: rms(load),
          socMae: soc.reduce((sum, e) => sum + e, 0) / soc.length,
        };
      });
      return { days, overallSolarRmse: rms(allSolar) };
    }
  });
});
