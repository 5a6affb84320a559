import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { migrate } from '@solar/database';
import { forecastWithPhysics, trainForecaster, TrainedModel } from '@solar/forecast';
import { databaseUrl, FakeOpenMeteo, startNode, withServer } from '@solar/testing';
import { syntheticSeries, SYNTHETIC_SITE } from '../libs/forecast/src/model/model.fixtures';
import { PhaseUsage, round, UsageMeter, waitForQuiet } from './support/processes';
import { log, RunResources } from './support/run-resources';

/**
 * `npm run bench:predict`: the scheduler's two fleet jobs, as a deployment runs them every six
 * hours. A fleet of N sources (one owner each, both scheduled settings on, distinct places and
 * sizes), each with the last 16 days of readings at a device's interval and a trained model,
 * is forecast by `npm run job -- predict` in a fresh scheduler process (the built app, cold),
 * after `npm run job -- weather` fetched each source's weather from a fake Open-Meteo on
 * loopback. Prints forecasts per second (and in each tenth of the run), the CPU per forecast of
 * the scheduler, PostgreSQL and Redis, the scheduler's peak RSS, and per model what parsing,
 * cloning and forecasting cost; writes them to bench/results/predict-<date>.json.
 *
 * The models are trained here, on a synthetic year with weather (the specs' installation), and
 * each source stores one of them: a forecast's cost depends on the model's size, not on whose
 * history it learned. What the run creates is removed at the end, on failure and on Ctrl-C.
 */

const WATCHDOG_MS = 90 * 60_000;
const HISTORY_DAYS = 16;
const DAY_MS = 86_400_000;
/** Every slot's forecasts done within a quarter of an hour, for this fleet size. */
const TARGET = { sources: 10_000, minutes: 15 };

const { values: flags } = parseArgs({
  options: {
    sources: { type: 'string', default: '500' },
    interval: { type: 'string', default: '60' },
    models: { type: 'string', default: '4' },
    due: { type: 'string', default: '0' },
    'app-root': { type: 'string' },
    keep: { type: 'boolean', default: false },
    database: { type: 'string' },
    profile: { type: 'string' },
    'quiet-wait': { type: 'string', default: '30' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(`npm run bench:predict -- [options]
  --sources N       sources in the fleet (500)
  --interval S      seconds between a device's readings in its history (60)
  --models K        distinct trained models shared out among the sources (4)
  --due N           give the first N sources a year of hourly history and weather and a model a
                    year and a day old, so the job trains them again before forecasting (0)
  --app-root DIR    run the scheduler built in another checkout (its dist/), for comparisons
  --quiet-wait S    before each job, wait up to S seconds for the machine to be idle (30)
  --profile DIR     write V8 CPU profiles of the two jobs' processes to DIR
  --keep            keep the database (prints its name)
  --database NAME   run on a database an earlier run kept (its fleet, readings and models; the
                    forecasts and weather it stored are removed first); --sources etc. are its own`);
  process.exit(0);
}
const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, not ${text}`);
  return value;
};
const sourceCount = positive('sources', flags.sources);
const intervalSeconds = positive('interval', flags.interval);
const modelCount = positive('models', flags.models);
const dueCount = flags.due === '0' ? 0 : positive('due', flags.due);
const appRoot = flags['app-root'] ?? join(__dirname, '..');

interface Held {
  db?: Client;
  weather?: FakeOpenMeteo;
}

async function release(held: Held): Promise<void> {
  const { db, weather } = held;
  held.db = undefined;
  held.weather = undefined;
  await db?.end().catch(() => undefined);
  await weather?.stop().catch(() => undefined);
}

interface FleetSource {
  id: string;
  userId: string;
  latitude: number;
  longitude: number;
  capacityWatts: number;
}

/** Places across Europe and sizes from 2 to 12 kW, the same for the same N. */
function fleet(count: number): FleetSource[] {
  return Array.from({ length: count }, (_, index) => {
    const spread = (index * 0.6180339887) % 1;
    return {
      id: randomUUID(),
      userId: randomUUID(),
      latitude: round(37 + 23 * spread, 4),
      longitude: round(-9 + 33 * ((index * 0.7548776662) % 1), 4),
      capacityWatts: 2000 + 500 * (index % 21),
    };
  });
}

/**
 * The fleet's curves in SQL, for the readings and for the hourly rows of `--due` alike, over a
 * source `s` (id, longitude): a clear-sky-shaped day at the source's local solar time (0..1) at
 * `epochSeconds`, a cloudiness per source and UTC day of `instant`, and a household load.
 */
const clearShapeSql = (epochSeconds: string) =>
  `greatest(0, sin(pi() * (((${epochSeconds}) / 3600 + s.longitude / 15)::numeric % 24 - 6) / 12))`;
const cloudinessSql = (instant: string) =>
  `(0.35 + 0.65 * abs(sin(hashtext(s.id::text || (extract(epoch FROM ${instant})::bigint / 86400)::text))))`;
const loadSql = (instant: string) => `(350 + 300 * abs(sin(extract(epoch FROM ${instant}) / 5000)))`;

/**
 * Users, both scheduled settings and sources, then the readings: a clear-sky-shaped PV curve
 * scaled by a cloudiness per source and day, a load, a state of charge, and the payload a device
 * sends in `raw`, every `interval` seconds over the last 16 days, with the hourly rollup rebuilt.
 */
async function seed(db: Client, sources: FleetSource[], now: Date): Promise<number> {
  const from = new Date(now.getTime() - HISTORY_DAYS * DAY_MS);
  await db.query(
    `SELECT ensure_telemetry_partition(month::date)
       FROM generate_series(date_trunc('month', $1::timestamptz, 'UTC'), $2::timestamptz, interval '1 month') AS month`,
    [from, now],
  );
  const BATCH = 20;
  let rows = 0;
  for (let offset = 0; offset < sources.length; offset += BATCH) {
    const batch = sources.slice(offset, offset + BATCH);
    const column = <K extends keyof FleetSource>(key: K) => batch.map((source) => source[key]);
    await db.query(
      `INSERT INTO users (id, email, password_hash, roles, email_verified)
       SELECT id, 'bench-' || id || '@example.com', 'not-a-hash', ARRAY['User'], true FROM unnest($1::uuid[]) AS id`,
      [column('userId')],
    );
    await db.query(
      `INSERT INTO user_settings (user_id, setting_type, value)
       SELECT id, setting, '1' FROM unnest($1::uuid[]) AS id, (VALUES (1), (2)) AS settings (setting)`,
      [column('userId')],
    );
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted, latitude, longitude,
                               installed_capacity_watts, is_active)
       SELECT id, user_id, 'Fleet ' || id, 'Webhook', 'v1.not-sealed', latitude, longitude, capacity, true
         FROM unnest($1::uuid[], $2::uuid[], $3::float8[], $4::float8[], $5::float8[])
              AS s (id, user_id, latitude, longitude, capacity)`,
      [column('id'), column('userId'), column('latitude'), column('longitude'), column('capacityWatts')],
    );
    const inserted = await db.query(
      `WITH readings AS (
         SELECT s.id, ts, s.capacity,
                ${clearShapeSql('extract(epoch FROM ts)')} * ${cloudinessSql('ts')} AS sun,
                ${loadSql('ts')} AS load
           FROM unnest($1::uuid[], $2::float8[], $3::float8[]) AS s (id, longitude, capacity),
                generate_series($4::timestamptz, $5::timestamptz, make_interval(secs => $6)) AS ts)
       INSERT INTO telemetry (sun_source_id, ts, solar_power, load_power, state_of_charge, raw)
       SELECT id, ts, round(capacity * 0.8 * sun), round(load), 50 + 40 * sin(extract(epoch FROM ts) / 40000),
              jsonb_build_object('timestamp', ts, 'solarPower', round(capacity * 0.8 * sun), 'loadPower', round(load),
                                 'batteryVoltage', 51.2, 'soc', 50, 'gridVoltage', 230.1, 'operatingMode', 'Solar')
         FROM readings`,
      [column('id'), column('longitude'), column('capacityWatts'), from, now, intervalSeconds],
    );
    rows += inserted.rowCount ?? 0;
    await db.query(
      `SELECT rebuild_telemetry_hourly(id, $2::timestamptz, $3::timestamptz + interval '1 hour')
         FROM unnest($1::uuid[]) AS id`,
      [column('id'), from, now],
    );
    // Without autovacuum the planner would keep the empty tables' statistics as they fill.
    if ((offset / BATCH) % 50 === 49) await db.query('ANALYZE telemetry, telemetry_hourly');
    const done = offset + batch.length;
    if (Math.floor(done / (sources.length / 10)) > Math.floor(offset / (sources.length / 10)))
      log(`seeded ${done} of ${sources.length} sources`);
  }
  await db.query('ANALYZE');
  return rows;
}

/** K models trained on a synthetic year with weather, each source given one of them. */
async function storeModels(db: Client, sources: FleetSource[], now: Date): Promise<void> {
  const start = Math.floor((now.getTime() - 365 * DAY_MS) / 3_600_000) * 3_600_000;
  const models = Array.from({ length: modelCount }, (_, k) => {
    const series = syntheticSeries(start, 365, k + 1);
    return trainForecaster({ site: SYNTHETIC_SITE, history: series.history, weather: series.weather, now });
  });
  // Each model is sent once, stored for the first K sources; the others get a copy of one of
  // those rows, a few hundred at a time (each model is a few hundred KB of JSON).
  const ids = sources.map((source) => source.id);
  await db.query(
    `INSERT INTO forecast_models (sun_source_id, trained_at, data_points_used, metrics, model)
     SELECT id, $2, 8760, metrics, model
       FROM unnest($1::uuid[], $3::jsonb[], $4::jsonb[]) AS m (id, metrics, model)`,
    [
      ids.slice(0, modelCount),
      now,
      models.map((model) => JSON.stringify(model.metrics)),
      models.map((model) => JSON.stringify(model)),
    ],
  );
  for (let offset = modelCount; offset < ids.length; offset += 250) {
    await db.query(
      `INSERT INTO forecast_models (sun_source_id, trained_at, data_points_used, metrics, model)
       SELECT s.id, m.trained_at, m.data_points_used, m.metrics, m.model
         FROM unnest($1::uuid[], $2::uuid[]) AS s (id, original)
         JOIN forecast_models m ON m.sun_source_id = s.original`,
      [
        ids.slice(offset, offset + 250),
        ids.slice(offset, offset + 250).map((_, i) => ids[(offset + i) % modelCount]),
      ],
    );
  }
}

/**
 * `--due N`: the first N sources get the rest of a year of history (hourly rollup rows before their
 * 16 days of readings, the same curves) and the past year's weather, and their model is dated a
 * year and a day back, so the predict job trains each again, on a year with weather (the largest
 * training there is), before the forecasts.
 */
async function makeDue(db: Client, count: number, now: Date): Promise<void> {
  const { rows: sources } = await db.query<Pick<FleetSource, 'id' | 'longitude' | 'capacityWatts'>>(
    `SELECT id, longitude, installed_capacity_watts AS "capacityWatts" FROM sun_sources ORDER BY id LIMIT $1`,
    [count],
  );
  const from = new Date(Math.floor((now.getTime() - 365 * DAY_MS) / 3_600_000) * 3_600_000);
  const until = new Date(now.getTime() - HISTORY_DAYS * DAY_MS);
  const column = (key: keyof (typeof sources)[number]) => sources.map((source) => source[key]);
  const sunAndLoad = `
    SELECT s.id, hour, s.capacity,
           ${clearShapeSql('extract(epoch FROM hour) + 1800')} AS clear,
           ${cloudinessSql('hour')} AS cloudiness,
           ${loadSql('hour')} AS load
      FROM unnest($1::uuid[], $2::float8[], $3::float8[]) AS s (id, longitude, capacity),
           generate_series($4::timestamptz, $5::timestamptz - interval '1 hour', interval '1 hour') AS hour`;
  await db.query(
    `WITH hours AS (${sunAndLoad})
     INSERT INTO telemetry_hourly (sun_source_id, hour, sample_count, battery_voltage_sum, battery_voltage_count,
                                   state_of_charge_sum, state_of_charge_count, solar_power_sum, solar_power_count,
                                   load_percentage_sum, load_percentage_count, load_power_sum, load_power_count,
                                   grid_voltage_sum, grid_voltage_count, grid_frequency_sum, grid_frequency_count,
                                   first_ts, last_ts, daily_energy_produced_increase, daily_energy_consumed_increase)
     SELECT id, hour, 1, 0, 0, 50 + 40 * sin(extract(epoch FROM hour) / 40000), 1,
            round(capacity * 0.8 * clear * cloudiness), 1, 0, 0, round(load), 1, 0, 0, 0, 0,
            hour, hour + interval '59 minutes', 0, 0
       FROM hours
     ON CONFLICT (sun_source_id, hour) DO NOTHING`,
    [column('id'), column('longitude'), column('capacityWatts'), from, until],
  );
  await db.query(
    `WITH hours AS (${sunAndLoad})
     INSERT INTO weather_hourly (sun_source_id, ts, temperature, shortwave_radiation, fetched_at)
     SELECT id, hour, 12 + 10 * clear, round(900 * clear * cloudiness), hour FROM hours
     ON CONFLICT (sun_source_id, ts) DO NOTHING`,
    [column('id'), column('longitude'), column('capacityWatts'), from, now],
  );
  await db.query(`UPDATE forecast_models SET trained_at = $2 WHERE sun_source_id = ANY($1::uuid[])`, [
    column('id'),
    new Date(now.getTime() - 366 * DAY_MS),
  ]);
  await db.query('ANALYZE telemetry_hourly, weather_hourly');
}

interface ComputeTimes {
  /** JSON.parse of a stored model's text, as the database driver does it. */
  parseMs: number;
  /** structuredClone of the parsed model: what handing it to a worker thread costs the sender. */
  cloneMs: number;
  /**
   * The forecast with its physics-only twin, from 16 days of history and 8 days of weather,
   * reading the parsed model included (unpacking its trees).
   */
  forecastMs: number;
}

/**
 * What one forecast costs the thread that computes it, per stored model (the median of 30 runs
 * each, in this process): the model's parse, its clone, the forecast.
 */
async function timeCompute(db: Client): Promise<Array<ComputeTimes & { kib: number }>> {
  const { rows } = await db.query<{ text: string }>(
    // One source per distinct model, told apart by their stored sizes (read without detoasting).
    `SELECT model::text AS text FROM forecast_models
      WHERE sun_source_id IN (SELECT DISTINCT ON (pg_column_size(model)) sun_source_id FROM forecast_models)`,
  );
  const now = Date.now();
  const start = Math.floor((now - HISTORY_DAYS * DAY_MS) / 3_600_000) * 3_600_000;
  const series = syntheticSeries(start, HISTORY_DAYS + 8, 99);
  const history = series.history.filter((hour) => hour.hour.getTime() < now);
  const weather = series.weather.filter((hour) => hour.hour.getTime() >= now - 3_600_000);
  const median = (runs: number[]) => round(runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)], 2);
  const timed = <T>(work: () => T, into: number[]): T => {
    const started = performance.now();
    const result = work();
    into.push(performance.now() - started);
    return result;
  };
  return rows.map(({ text }) => {
    const parse: number[] = [];
    const clone: number[] = [];
    const forecast: number[] = [];
    for (let run = 0; run < 30; run++) {
      const model = timed(() => JSON.parse(text) as TrainedModel, parse);
      timed(() => structuredClone(model), clone);
      timed(
        () => forecastWithPhysics({ site: SYNTHETIC_SITE, model, history, weather, now: new Date(now) }),
        forecast,
      );
    }
    return {
      kib: round(text.length / 1024),
      parseMs: median(parse),
      cloneMs: median(clone),
      forecastMs: median(forecast),
    };
  });
}

interface JobRun {
  /** Epoch ms when the job's process was started. */
  startedAt: number;
  seconds: number;
  busyBefore: number;
  used: PhaseUsage;
  peakRssMiB?: number;
  report?: Record<string, unknown>;
}

/** `npm run job -- <name>` of the built scheduler, in a process of its own, watched while it runs. */
async function runJob(
  resources: RunResources,
  environment: Record<string, string>,
  name: 'weather' | 'predict',
): Promise<JobRun> {
  const busyBefore = await waitForQuiet(Number(flags['quiet-wait']) * 1000);
  const reportMessage = `job ${name} completed`;
  const startedAt = Date.now();
  const started = performance.now();
  const entry = join(appRoot, 'dist', 'apps', 'scheduler', 'src', 'run-job.js');
  const job = startNode(
    `job ${name}`,
    [...resources.profileArgs(`job-${name}`, flags.profile), entry, name],
    {
      cwd: appRoot,
      env: environment,
      keep: [reportMessage],
    },
  );
  resources.children.push(job);
  const meter = new UsageMeter();
  meter.watchPid('scheduler', job.pid);
  meter.watchComm('postgres', 'postgres', ` ${resources.databaseName} `);
  meter.watchComm('redis', 'redis-server');
  const usage = meter.begin();
  let peakRssMiB: number | undefined;
  const sampler = setInterval(() => {
    peakRssMiB = UsageMeter.lifetimePeakMiB(job.pid) ?? peakRssMiB;
  }, 200);
  const { code, signal } = await job.exited;
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  // The job's process and its database backends have exited: their CPU is kept as last sampled.
  const used = usage.end();
  if (code !== 0)
    throw new Error(`job ${name} failed (${signal ?? code}): ${job.tail.slice(-10).join('\n')}`);
  const report = job.kept.find((line) => line.msg === reportMessage);
  return { startedAt, seconds, busyBefore, used, peakRssMiB, report };
}

async function main(resources: RunResources, held: Held): Promise<void> {
  const postgres = await withServer(
    async (client) => (await client.query('SHOW server_version')).rows[0].server_version,
  );
  const machine = `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${round(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}, PostgreSQL ${postgres}`;
  log(machine);
  const db = new Client({ connectionString: databaseUrl(resources.databaseName) });
  held.db = db;
  if (flags.database) {
    await db.connect();
    await db.query(
      'DELETE FROM predictions; DELETE FROM day_ahead_forecasts; DELETE FROM weather_hourly; DELETE FROM weather_daily',
    );
    await db.query('VACUUM ANALYZE predictions, day_ahead_forecasts, weather_hourly, weather_daily');
  } else {
    const now = new Date();
    const sources = fleet(sourceCount);
    await migrate(databaseUrl(resources.databaseName));
    await db.connect();
    const seedStarted = performance.now();
    const readings = await seed(db, sources, now);
    log(
      `seeded ${sourceCount} sources, ${readings} readings, in ${round((performance.now() - seedStarted) / 1000)} s`,
    );
    await storeModels(db, sources, now);
  }
  if (dueCount > 0) {
    await makeDue(db, dueCount, new Date());
    log(`${dueCount} sources given a year of history and a model trained a year and a day ago`);
  }
  const {
    sources: fleetSize,
    readings,
    hours,
  } = (
    await db.query<{ sources: number; readings: number; hours: number }>(
      `SELECT (SELECT count(*) FROM sun_sources)::int AS sources, (SELECT count(*) FROM telemetry)::int AS readings,
              (SELECT extract(epoch FROM max(ts) - min(ts)) / 3600 FROM telemetry)::int AS hours`,
    )
  ).rows[0];
  const compute = await timeCompute(db);
  const modelKiB = compute.map((times) => times.kib);
  // What the models take in the database, compressed as PostgreSQL stores them, before the jobs run.
  const { rows: modelTable } = await db.query<{ bytes: string }>(
    `SELECT pg_total_relation_size('forecast_models') AS bytes`,
  );
  const modelsStoredMiB = round(Number(modelTable[0].bytes) / 2 ** 20, 1);
  log(
    `${fleetSize} sources, ${readings} readings over ${hours} hours, models of ${modelKiB.join(', ')} KiB of JSON, ` +
      `${modelsStoredMiB} MiB stored`,
  );
  log(`compute per model: ${compute.map((times) => JSON.stringify(times)).join(' ')}`);

  const weather = new FakeOpenMeteo({ utcOffsetSeconds: 0, timezone: 'GMT', timezoneAbbreviation: 'GMT' });
  held.weather = weather;
  await weather.start();
  const environment = {
    ...resources.appEnvironment(0, randomBytes(32).toString('hex'), 'scheduler'),
    WEATHER_API_URL: weather.url,
    LOG_LEVEL: 'info',
  };
  const weatherRun = await runJob(resources, environment, 'weather');
  log(`weather job: ${round(weatherRun.seconds, 1)} s, ${weather.requests.length} requests`);
  const predictRun = await runJob(resources, environment, 'predict');

  const stored = (
    await db.query<{ at: Date }>(`SELECT created_at AS at FROM predictions ORDER BY created_at`)
  ).rows.map((row) => row.at.getTime());
  const dayAhead = Number((await db.query(`SELECT count(*) AS n FROM day_ahead_forecasts`)).rows[0].n);
  const span = stored.length > 1 ? (stored[stored.length - 1] - stored[0]) / 1000 : Number.NaN;
  // The rate in each tenth of the run: a run that slows as it goes (memory, a growing table)
  // shows here, where the overall rate hides it.
  const tenths = Array.from({ length: 10 }, (_, tenth) => {
    const from = stored[0] + (tenth * span * 1000) / 10;
    const to = stored[0] + ((tenth + 1) * span * 1000) / 10;
    return stored.filter((at) => at >= from && (at < to || tenth === 9)).length / (span / 10);
  });
  const perSecond = (stored.length - 1) / span;
  const fleetMinutes = TARGET.sources / perSecond / 60;
  const cpu = (run: JobRun, name: string) => run.used.processes[name]?.cpuPercent ?? 0;
  const cpuMsPerForecast = (name: string) =>
    round(((cpu(predictRun, name) / 100) * predictRun.used.seconds * 1000) / stored.length, 1);
  const figures = {
    machine,
    sources: fleetSize,
    readings,
    historyHours: hours,
    modelKiB,
    modelsStoredMiB,
    compute,
    weather: {
      seconds: round(weatherRun.seconds, 1),
      requests: weather.requests.length,
      report: weatherRun.report?.counts,
      busyBeforePercent: weatherRun.busyBefore,
    },
    predict: {
      processSeconds: round(predictRun.seconds, 1),
      report: predictRun.report?.counts,
      stored: stored.length,
      dayAhead,
      /** From the process's start to the first stored forecast: startup, and the trainings of `--due`. */
      firstForecastAfterSeconds: round((stored[0] - predictRun.startedAt) / 1000, 1),
      firstToLastSeconds: round(span, 1),
      forecastsPerSecond: round(perSecond, 1),
      perSecondByTenth: { min: round(Math.min(...tenths), 1), max: round(Math.max(...tenths), 1) },
      cpuMsPerForecast: {
        scheduler: cpuMsPerForecast('scheduler'),
        postgres: cpuMsPerForecast('postgres'),
        redis: cpuMsPerForecast('redis'),
      },
      machineCpuPercent: predictRun.used.machineCpuPercent,
      otherCpuPercent: predictRun.used.otherCpuPercent,
      schedulerPeakRssMiB: predictRun.peakRssMiB === undefined ? undefined : round(predictRun.peakRssMiB),
      busyBeforePercent: predictRun.busyBefore,
      minutesFor: { sources: TARGET.sources, minutes: round(fleetMinutes, 1) },
    },
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const results = join(__dirname, 'results', `predict-${resources.stamp}.json`);
  writeFileSync(results, `${JSON.stringify(figures, null, 2)}\n`);
  const p = figures.predict;
  console.log(
    [
      '',
      `Scheduled jobs of a fleet (${machine})`,
      ` fleet       ${fleetSize} sources, ${readings} readings over ${hours} hours, models of ${modelKiB.join('/')} KiB of JSON`,
      ` models      ${modelsStoredMiB} MiB in forecast_models, ${round((modelsStoredMiB * 1024) / fleetSize)} KiB a source`,
      ` weather     ${figures.weather.seconds} s for ${weather.requests.length} fetches from a provider on loopback, ${JSON.stringify(figures.weather.report)}`,
      ` predict     ${p.processSeconds} s for the process, the first forecast stored after ${p.firstForecastAfterSeconds} s, ${p.firstToLastSeconds} s from it to the last; ${JSON.stringify(p.report)}`,
      ` stored      ${p.stored} forecasts, ${p.dayAhead} day-ahead rows`,
      ` rate        ${p.forecastsPerSecond} forecasts/s (${p.perSecondByTenth.min}–${p.perSecondByTenth.max} in each tenth of the run)`,
      ` CPU         per forecast: ${p.cpuMsPerForecast.scheduler} ms the scheduler, ${p.cpuMsPerForecast.postgres} ms PostgreSQL, ${p.cpuMsPerForecast.redis} ms Redis; machine ${p.machineCpuPercent}% busy (other work ${p.otherCpuPercent}% of a core)`,
      ` memory      scheduler peak RSS ${p.schedulerPeakRssMiB} MiB`,
      ` per model   ${compute.map((t) => `${t.kib} KiB: parse ${t.parseMs} ms, clone ${t.cloneMs} ms, forecast ${t.forecastMs} ms`).join('; ')} (medians, this process)`,
      ` ${fleetMinutes <= TARGET.minutes ? 'PASS' : 'MISS'}  ${TARGET.sources} sources forecast in ${round(fleetMinutes, 1)} min at this rate (target ≤ ${TARGET.minutes})`,
      ` ${p.stored === fleetSize && dayAhead === fleetSize ? 'PASS' : 'MISS'}  every source forecast and its day-ahead forecast kept`,
      ` written to ${results}`,
    ].join('\n'),
  );
}

const held: Held = {};
const resources = new RunResources({
  label: 'predict',
  database: flags.database,
  keepDatabase: flags.keep || flags.database !== undefined,
  appRoot,
  release: () => release(held),
});
void resources.execute(() => main(resources, held), WATCHDOG_MS);
