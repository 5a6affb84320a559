import { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { RedisLocks } from '@solar/redis';
import { createTestEnvironment, FakeClock, TestEnvironment } from '@solar/testing';
import { createSchedulerApp } from '../src/create-scheduler-app';
import { JobRunner } from '../src/jobs/job-runner';

const NOW = new Date('2026-06-07T02:00:00Z'); // a Sunday, 02:00 UTC
const OLD = Date.UTC(2026, 3, 1, 12, 0, 0); // 2026-04-01, well over 30 days before

describe('scheduler jobs', () => {
  let env: TestEnvironment;
  let db: Client;
  let first: INestApplication;
  let second: INestApplication;
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    env = await createTestEnvironment();
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [first, second] = await Promise.all([
      createSchedulerApp(env.config, { clock }),
      createSchedulerApp(env.configWith({}), { clock }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await db.end();
    await env.teardown();
  });

  /** A source with `readings` rows one minute apart, all in one 5-minute bucket per 5 readings. */
  async function sourceWithOldReadings(readings: number): Promise<string> {
    const userId = randomUUID();
    const sourceId = randomUUID();
    await db.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      userId,
      `${userId}@example.com`,
    ]);
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted) VALUES ($1, $2, 'S', 'Webhook', 'v1.x')`,
      [sourceId, userId],
    );
    await db.query(`SELECT ensure_telemetry_partition($1::date)`, [new Date(OLD)]);
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, solar_power, raw)
       SELECT $1, to_timestamp($2::float8 / 1000) + make_interval(mins => n), n, '{}'::jsonb
         FROM generate_series(0, $3 - 1) AS n`,
      [sourceId, OLD, readings],
    );
    return sourceId;
  }

  const rowsOf = async (sourceId: string) =>
    (await db.query('SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1', [sourceId])).rows[0]
      .n;

  it('registers the weekly downsample for Sunday 02:00 UTC', () => {
    const cron = first.get(SchedulerRegistry).getCronJob('downsample');
    expect(String(cron.cronTime.source)).toBe('0 2 * * 0');
    expect(cron.cronTime.timeZone).toBe('UTC');
  });

  it('runs a slot once, however many replicas fire it', async () => {
    const sourceId = await sourceWithOldReadings(10);
    const slot = new Date(NOW);
    const reports = await Promise.all([
      first.get(JobRunner).run('downsample', slot),
      second.get(JobRunner).run('downsample', slot),
    ]);
    expect(reports.map((report) => report.status).sort()).toEqual(['completed', 'skipped']);
    const completed = reports.find((report) => report.status === 'completed');
    expect(completed).toMatchObject({ counts: { bucketsWritten: 2, rowsRemoved: 10 } });
    expect(await rowsOf(sourceId)).toBe(2);

    const again = await first.get(JobRunner).run('downsample', slot);
    expect(again).toEqual({
      job: 'downsample',
      status: 'skipped',
      reason: 'this slot already ran on another instance',
    });
    const nextWeek = await second.get(JobRunner).run('downsample', new Date(NOW.getTime() + 7 * 86_400_000));
    expect(nextWeek).toMatchObject({ status: 'completed', counts: { bucketsWritten: 0, rowsRemoved: 0 } });
  });

  it('never runs a job twice at the same time', async () => {
    const locks = first.get(RedisLocks);
    const token = await locks.acquire('jobs:downsample:running', 60_000);
    expect(token).toBeDefined();
    try {
      expect(await second.get(JobRunner).run('downsample')).toEqual({
        job: 'downsample',
        status: 'skipped',
        reason: 'already running',
      });
    } finally {
      await locks.release('jobs:downsample:running', token!);
    }
    expect((await second.get(JobRunner).run('downsample')).status).toBe('completed');
  });

  it('reports a failed run and frees the job for the next one', async () => {
    await sourceWithOldReadings(3);
    await db.query(
      `ALTER TABLE telemetry ADD CONSTRAINT refuse_compacted CHECK (NOT raw ? 'downsampled') NOT VALID`,
    );
    try {
      expect(await first.get(JobRunner).run('downsample')).toMatchObject({
        status: 'failed',
        error: expect.any(String),
      });
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT refuse_compacted');
    }
    expect(await first.get(JobRunner).run('downsample')).toMatchObject({
      status: 'completed',
      counts: { rowsRemoved: 3 },
    });
  });

  it('runs by hand with npm run job -- downsample', async () => {
    const sourceId = await sourceWithOldReadings(5);
    const root = join(__dirname, '..', '..', '..');
    const env2 = env.configWith({});
    const { stdout } = await promisify(execFile)('node', ['scripts/start.js', '--job', 'downsample'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: env2.databaseUrl,
        REDIS_URL: env2.redisUrl,
        REDIS_KEY_PREFIX: env2.redisKeyPrefix,
        INTERNAL_API_KEY: env2.internalApiKey,
        SESSION_SECRET: env2.sessionSecret,
        SECRETS_KEY: env2.secretsKey.toString('hex'),
        DATA_DIR: env2.dataDir,
        LOG_LEVEL: 'info',
      },
    });
    const report = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; counts?: Record<string, number> })
      .find((line) => line.msg === 'job downsample completed');
    expect(report?.counts).toMatchObject({ rowsRemoved: 5, bucketsWritten: 1 });
    expect(await rowsOf(sourceId)).toBe(1);
  }, 120_000);
});
