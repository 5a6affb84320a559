import { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestEnvironment, FakeClock, FakeOpenMeteo, TestEnvironment } from '@solar/testing';
import { createSchedulerApp } from '../src/create-scheduler-app';
import { JOB_NAMES, JobRunner } from '../src/jobs/job-runner';

const NOW = new Date('2026-06-10T06:00:00Z');
const FORECAST = { firstDate: '2026-06-10', utcOffsetSeconds: 7200, timezone: 'Europe/Berlin' };

describe('weather refresh job', () => {
  let fake: FakeOpenMeteo;
  let env: TestEnvironment;
  let db: Client;
  let first: INestApplication;
  let second: INestApplication;
  const clock = new FakeClock(NOW);
  let latitudes = 0;

  beforeAll(async () => {
    fake = await new FakeOpenMeteo(FORECAST).start();
    env = await createTestEnvironment({ WEATHER_API_URL: fake.url });
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [first, second] = await Promise.all([
      createSchedulerApp(env.config, { clock }),
      createSchedulerApp(env.configWith({}), { clock }),
    ]);
    // Only the runs this file starts: a real six-hourly firing must not race them.
    for (const app of [first, second]) {
      for (const cron of app.get(SchedulerRegistry).getCronJobs().values()) await cron.stop();
    }
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await db.end();
    await fake.stop();
    await env.teardown();
  });

  /** A user whose setting 2 (AutoUpdateWeatherData) is `value`, or was never written. */
  async function user(value?: '0' | '1'): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      id,
      `${id}@example.com`,
    ]);
    if (value) {
      await db.query(`INSERT INTO user_settings (user_id, setting_type, value) VALUES ($1, 2, $2)`, [
        id,
        value,
      ]);
    }
    return id;
  }

  /** A source at a latitude of its own (the fake's requests tell the sources apart by it). */
  async function source(
    userId: string,
    options: { coordinates?: boolean; active?: boolean } = {},
  ): Promise<{ id: string; latitude: number }> {
    const id = randomUUID();
    latitudes += 1;
    const latitude = 10 + latitudes / 10;
    const withCoordinates = options.coordinates ?? true;
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted, latitude, longitude, is_active)
       VALUES ($1, $2, 'S', 'Webhook', 'v1.x', $3, $4, $5)`,
      [id, userId, withCoordinates ? latitude : null, withCoordinates ? 20.5 : null, options.active ?? true],
    );
    return { id, latitude };
  }

  const storedDays = async (sourceId: string) =>
    (await db.query('SELECT count(*)::int AS n FROM weather_daily WHERE sun_source_id = $1', [sourceId]))
      .rows[0].n;
  const storedHours = async (sourceId: string) =>
    (await db.query('SELECT count(*)::int AS n FROM weather_hourly WHERE sun_source_id = $1', [sourceId]))
      .rows[0].n;

  it('is a job `npm run job -- weather` knows, scheduled every six hours on the hour, UTC', () => {
    expect(JOB_NAMES).toContain('weather');
    const cron = first.get(SchedulerRegistry).getCronJob('weather');
    expect(String(cron.cronTime.source)).toBe('0 */6 * * *');
    expect(cron.cronTime.timeZone).toBe('UTC');
  });

  // One scenario, since every run sees every user of the database.
  let enabled: { id: string; latitude: number }[];

  it('refreshes the active sources with coordinates of users with setting 2 = "1", and only those', async () => {
    const on = await user('1');
    const off = await user('0');
    const never = await user();
    const alsoOn = await user('1');
    const failing = await source(alsoOn);
    enabled = [await source(on), await source(on), failing, await source(alsoOn)];
    const inactive = await source(on, { active: false });
    const noCoordinates = await source(on, { coordinates: false });
    const ignored = [await source(off), await source(never), inactive];
    fake.answerWith('http-500', { latitude: failing.latitude });

    const report = await first.get(JobRunner).run('weather');

    expect(report).toEqual({
      job: 'weather',
      status: 'completed',
      durationMs: expect.any(Number),
      counts: { refreshed: 3, failed: 1, skipped: 2 },
    });
    for (const refreshed of enabled.filter((candidate) => candidate !== failing)) {
      expect(await storedDays(refreshed.id)).toBe(8);
      expect(await storedHours(refreshed.id)).toBe(192);
      expect(fake.requestsFor(refreshed.latitude)).toHaveLength(1);
    }
    expect(fake.requestsFor(failing.latitude)).toHaveLength(1);
    expect(await storedDays(failing.id)).toBe(0);
    for (const skipped of [...ignored, noCoordinates]) {
      expect(await storedDays(skipped.id)).toBe(0);
      expect(fake.requestsFor(skipped.latitude)).toHaveLength(0);
    }
  });

  it('runs a slot once, however many replicas fire it', async () => {
    fake.reset({ variant: 1 });
    const requestsBefore = fake.requests.length;
    const slot = new Date(NOW);
    const reports = await Promise.all([
      first.get(JobRunner).run('weather', slot),
      second.get(JobRunner).run('weather', slot),
    ]);

    expect(reports.map((report) => report.status).sort()).toEqual(['completed', 'skipped']);
    expect(reports.find((report) => report.status === 'completed')).toMatchObject({
      counts: { refreshed: 4, failed: 0, skipped: 2 },
    });
    expect(fake.requests.length - requestsBefore).toBe(enabled.length);
    for (const refreshed of enabled) expect(await storedDays(refreshed.id)).toBe(8);

    expect(await second.get(JobRunner).run('weather', slot)).toEqual({
      job: 'weather',
      status: 'skipped',
      reason: 'this slot already ran on another instance',
    });
    const nextSlot = await second.get(JobRunner).run('weather', new Date(NOW.getTime() + 6 * 3_600_000));
    expect(nextSlot).toMatchObject({ status: 'completed', counts: { refreshed: 4, failed: 0, skipped: 2 } });
  });
});
