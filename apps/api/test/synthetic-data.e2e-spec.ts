import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import request from 'supertest';
import { solarPosition } from '@solar/forecast';
import { NUMERIC_FIELDS } from '@solar/telemetry';
import {
  createTestEnvironment,
  Http,
  logIn,
  signUp,
  TEST_REDIS_URL,
  TestEnvironment,
  uniqueEmail,
} from '@solar/testing';
import { startApi } from './support/api-harness';

// jest.config.js sets testTimeout inside the e2e project, where Jest does not read it; the live
// generator test waits for a real 10-second tick.
jest.setTimeout(30_000);

const ADMIN_PASSWORD = 'Root-Pass-2026';
const STEP_MS = 5 * 60_000;
const POINTS = 8_640;
const AUTH_REQUIRED = { message: 'Authentication required' };
const INSUFFICIENT_ROLE = { message: 'Insufficient role' };
const NOT_FOUND = { message: 'Sun source not found' };
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BOULDER = { latitude: 40, longitude: -105.25 };
/** Local time for Boulder's daily counters: round(−105.25 / 15) = UTC−7. */
const BOULDER_UTC_OFFSET_MS = -7 * 3_600_000;

type Row = Record<string, unknown> & { ts: Date; raw: Record<string, unknown> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('synthetic telemetry /api/sunsourcedata/debug', () => {
  const adminEmail = uniqueEmail('root');
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  /** A second api instance on the same database and Redis. */
  let otherApp: INestApplication;
  let otherHttp: Http;
  let db: Client;
  let redis: Redis;
  let admin: string;
  let user: { cookie: string; id: string };

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD });
    [{ app, http }, { app: otherApp, http: otherHttp }] = await Promise.all([
      startApi(env.config),
      startApi(env.configWith({})),
    ]);
    db = new Client({ connectionString: env.config.databaseUrl });
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: env.config.redisKeyPrefix });
    await db.connect();
    [admin, user] = await Promise.all([logIn(http, adminEmail, ADMIN_PASSWORD), signUp(http, env.mail)]);
  });

  afterAll(async () => {
    await Promise.all([app.close(), otherApp.close()]);
    await db.end();
    redis.disconnect();
    await env.teardown();
  });

  async function createSource(cookie: string, body: object = {}): Promise<string> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'Synthetic', connectionType: 'MQTT', ...body })
      .expect(201);
    return created.body.id as string;
  }

  const rows = async (id: string): Promise<Row[]> =>
    (await db.query('SELECT * FROM telemetry WHERE sun_source_id = $1 ORDER BY ts', [id])).rows;
  const generate = (id: string, cookie = admin, on = http) =>
    on.post(`/api/sunsourcedata/debug/generate/${id}`).set('Cookie', cookie);
  const start = (id: string, cookie = admin, on = http) =>
    on.post(`/api/sunsourcedata/debug/process/start/${id}`).set('Cookie', cookie);
  const stop = (id: string, cookie = admin, on = http) =>
    on.post(`/api/sunsourcedata/debug/process/stop/${id}`).set('Cookie', cookie);
  const status = (id: string, cookie = admin, on = http) =>
    on.get(`/api/sunsourcedata/debug/process/status/${id}`).set('Cookie', cookie);

  async function waitForMessages(id: string, count: number, within: number): Promise<number> {
    const deadline = Date.now() + within;
    for (;;) {
      const { body } = await status(id).expect(200);
      if (body.messagesSent >= count || Date.now() > deadline) return body.messagesSent as number;
      await sleep(200);
    }
  }

  describe('POST generate/{sunSourceId}', () => {
    let id: string;
    let stored: Row[];
    let requestedAt: number;

    beforeAll(async () => {
      id = await createSource(admin, { ...BOULDER, installedCapacityWatts: 6_000 });
      requestedAt = Date.now();
      const response = await generate(id).expect(200);
      expect(response.body).toEqual({ generated: POINTS });
      stored = await rows(id);
    });

    it('stores 8,640 points, 5 minutes apart, spanning 30 days and ending now', () => {
      expect(stored).toHaveLength(POINTS);
      const times = stored.map((row) => row.ts.getTime());
      expect(new Set(times.slice(1).map((time, index) => time - times[index]))).toEqual(new Set([STEP_MS]));
      const last = times.at(-1)!;
      expect(last % STEP_MS).toBe(0);
      expect(last).toBeLessThanOrEqual(Date.now());
      expect(last).toBeGreaterThan(requestedAt - STEP_MS);
      expect(last - times[0]).toBe(30 * 24 * 3_600_000 - STEP_MS);
    });

    it('every numeric value is present and inside its field range', () => {
      const outside: string[] = [];
      for (const row of stored) {
        for (const field of NUMERIC_FIELDS) {
          const value = row[field.column];
          if (typeof value !== 'number' || value < field.min || value > field.max) {
            outside.push(`${row.ts.toISOString()} ${field.name}=${String(value)}`);
          }
        }
      }
      expect(outside).toEqual([]);
      const modes = new Set(stored.map((row) => row.operating_mode));
      expect([...modes].every((mode) => ['Solar', 'Battery', 'Grid'].includes(String(mode)))).toBe(true);
      const statuses = new Set(stored.map((row) => row.device_status));
      expect([...statuses].every((value) => ['Normal', 'Warning'].includes(String(value)))).toBe(true);
    });

    it("produces no solar power while the sun is below the source's horizon", () => {
      const night = stored.filter(
        (row) => solarPosition(row.ts, BOULDER.latitude, BOULDER.longitude).elevation <= 0,
      );
      expect(night.length).toBeGreaterThan(POINTS / 4);
      expect(night.filter((row) => row.solar_power !== 0)).toEqual([]);
      const noon = stored.filter(
        (row) => solarPosition(row.ts, BOULDER.latitude, BOULDER.longitude).elevation > 20,
      );
      expect(noon.filter((row) => (row.solar_power as number) > 0).length).toBeGreaterThan(noon.length * 0.9);
    });

    it('daily counters grow through the local day and reset at local midnight (UTC−7)', () => {
      const localDate = (row: Row) =>
        new Date(row.ts.getTime() + BOULDER_UTC_OFFSET_MS).toISOString().slice(0, 10);
      const problems: string[] = [];
      let resets = 0;
      for (let index = 1; index < stored.length; index += 1) {
        const [before, row] = [stored[index - 1], stored[index]];
        const produced = row.daily_energy_produced as number;
        const consumed = row.daily_energy_consumed as number;
        if (localDate(row) !== localDate(before)) {
          resets += 1;
          const localTime = new Date(row.ts.getTime() + BOULDER_UTC_OFFSET_MS).toISOString();
          if (!localTime.includes('T00:00:00')) problems.push(`reset at local ${localTime}`);
          // The series' first reading holds only its own step's energy: when the run starts in the
          // last step before local midnight, it is no more than the first step after the reset.
          const beforeIsFirst = index === 1;
          if (!beforeIsFirst && consumed >= (before.daily_energy_consumed as number))
            problems.push(`${localTime}: no reset`);
        } else if (
          produced < (before.daily_energy_produced as number) ||
          consumed < (before.daily_energy_consumed as number)
        ) {
          problems.push(`${row.ts.toISOString()}: a counter went down within the day`);
        }
      }
      expect(problems).toEqual([]);
      expect(resets).toBeGreaterThanOrEqual(29);
    });

    it('keeps the payload as raw, like any device message', () => {
      const [row] = stored;
      expect(row.raw).toEqual(
        expect.objectContaining({
          timestamp: row.ts.toISOString(),
          solarPower: row.solar_power,
          stateOfCharge: row.state_of_charge,
          gridPower: row.grid_power,
          operatingMode: row.operating_mode,
        }),
      );
    });

    it('a second call finds the timestamps stored and stores (next to) nothing', async () => {
      const again = await generate(id).expect(200);
      // Only a 5-minute boundary passed between the two calls adds a point.
      expect(again.body.generated).toBeLessThanOrEqual(1);
      expect(await rows(id)).toHaveLength(POINTS + (again.body.generated as number));
    });
    it('simulates the array as its owner installed it: steep and facing north, it yields far less', async () => {
      const north = await createSource(admin, {
        ...BOULDER,
        installedCapacityWatts: 6_000,
        orientation: { tilt: 60, azimuth: 0 },
      });
      await generate(north).expect(200);
      const energy = (series: Row[]) => series.reduce((sum, row) => sum + (row.solar_power as number), 0);
      const northRows = await rows(north);
      expect(northRows).toHaveLength(POINTS);
      // 30 days of other clouds (the seed is the source's id), in any season: the sun stays behind it.
      expect(energy(northRows)).toBeGreaterThan(0);
      expect(energy(northRows)).toBeLessThan(0.75 * energy(stored));
    });

    it('a live generator started afterwards continues the stored series', async () => {
      const before = await rows(id);
      const last = before.at(-1)!;
      await start(id).expect(200);
      expect(await waitForMessages(id, 1, 3_000)).toBeGreaterThanOrEqual(1);
      await stop(id).expect(200);
      const live = (await rows(id)).slice(before.length);
      expect(live).toHaveLength(1);
      expect(live[0].ts.getTime()).toBeGreaterThanOrEqual(last.ts.getTime() + 10_000);
      expect(live[0].total_energy_produced as number).toBeGreaterThanOrEqual(
        last.total_energy_produced as number,
      );
      expect(live[0].total_energy_produced as number).toBeLessThan(
        (last.total_energy_produced as number) + 1,
      );
      expect(Math.abs((live[0].state_of_charge as number) - (last.state_of_charge as number))).toBeLessThan(
        10,
      );
    });
  });

  describe('live generator: process/start, status, stop', () => {
    it('publishes through the normal ingestion path, shares its state between instances and stops', async () => {
      const [local, remote, idle] = await Promise.all([
        createSource(admin, BOULDER),
        createSource(admin, BOULDER),
        createSource(admin),
      ]);

      expect((await status(idle).expect(200)).body).toEqual({
        running: false,
        startedAt: null,
        messagesSent: 0,
      });

      const started = await start(remote).expect(200);
      expect(started.body).toEqual({
        running: true,
        startedAt: expect.stringMatching(ISO_TIMESTAMP),
        messagesSent: 0,
      });
      // Starting again, on the other instance, is the same run.
      const again = await start(remote, admin, otherHttp).expect(200);
      expect(again.body).toEqual(
        expect.objectContaining({ running: true, startedAt: started.body.startedAt }),
      );
      await start(local).expect(200);

      // The first message goes out at once.
      expect(await waitForMessages(remote, 1, 3_000)).toBeGreaterThanOrEqual(1);
      const [first] = await rows(remote);
      expect(first.raw).toEqual(
        expect.objectContaining({ timestamp: first.ts.toISOString(), solarPower: first.solar_power }),
      );
      expect(first.ts.getTime() % 10_000).toBe(0);
      // It passed the throttle window, which the bulk generate path never touches.
      expect(await redis.zscore(`telemetry:{${remote}}:throttle`, String(first.ts.getTime()))).not.toBeNull();

      // Status and stop on the other instance: the owner sees the flag at its next tick.
      expect((await status(remote, admin, otherHttp).expect(200)).body).toEqual({
        running: true,
        startedAt: started.body.startedAt,
        messagesSent: 1,
      });
      const stopped = await stop(remote, admin, otherHttp).expect(200);
      expect(stopped.body).toEqual({ running: false, startedAt: started.body.startedAt, messagesSent: 1 });
      expect((await status(remote).expect(200)).body.running).toBe(false);

      // The generator of `local` keeps going: a second message one interval later, 10 s on.
      expect(await waitForMessages(local, 2, 12_000)).toBeGreaterThanOrEqual(2);
      const localRows = await rows(local);
      expect(localRows.length).toBeGreaterThanOrEqual(2);
      expect(localRows[1].ts.getTime() - localRows[0].ts.getTime()).toBeGreaterThanOrEqual(10_000);
      expect(localRows[1].total_energy_produced as number).toBeGreaterThanOrEqual(
        localRows[0].total_energy_produced as number,
      );

      // By now the owner of `remote` has ticked since the stop and sent nothing.
      await sleep(500);
      expect(await rows(remote)).toHaveLength(1);
      expect((await status(remote).expect(200)).body).toEqual(stopped.body);

      const localStopped = await stop(local).expect(200);
      expect(localStopped.body).toEqual(expect.objectContaining({ running: false }));
      const count = (await rows(local)).length;
      expect(count).toBe(localStopped.body.messagesSent);
      await sleep(300);
      expect(await rows(local)).toHaveLength(count);
    });

    it('a run whose process died (no heartbeat for 30 s) counts as stopped and starts afresh', async () => {
      const id = await createSource(admin);
      await redis.hset(`synthetic:{${id}}`, {
        runId: 'gone',
        startedAt: '2026-01-01T00:00:00.000Z',
        messagesSent: '42',
        running: '1',
        heartbeatAt: String(Date.now() - 31_000),
      });
      expect((await status(id).expect(200)).body).toEqual({
        running: false,
        startedAt: '2026-01-01T00:00:00.000Z',
        messagesSent: 42,
      });
      const restarted = await start(id).expect(200);
      expect(restarted.body).toEqual({ running: true, startedAt: expect.any(String), messagesSent: 0 });
      expect(restarted.body.startedAt).not.toBe('2026-01-01T00:00:00.000Z');
      expect((await stop(id).expect(200)).body.running).toBe(false);
    });
  });

  describe('access', () => {
    const endpoints: Array<[string, (id: string, cookie: string) => request.Test]> = [
      ['POST generate', (id, cookie) => generate(id, cookie)],
      ['POST process/start', (id, cookie) => start(id, cookie)],
      ['POST process/stop', (id, cookie) => stop(id, cookie)],
      ['GET process/status', (id, cookie) => status(id, cookie)],
    ];

    it.each(endpoints)('%s: 403 for a User, even on their own source', async (_name, call) => {
      const own = await createSource(user.cookie);
      expect((await call(own, user.cookie).expect(403)).body).toEqual(INSUFFICIENT_ROLE);
      expect(await rows(own)).toHaveLength(0);
    });

    it.each(endpoints)("%s: 404 for another user's source", async (_name, call) => {
      const theirs = await createSource(user.cookie);
      expect((await call(theirs, admin).expect(404)).body).toEqual(NOT_FOUND);
      expect((await call(randomUUID(), admin).expect(404)).body).toEqual(NOT_FOUND);
      expect(await rows(theirs)).toHaveLength(0);
    });

    it.each(endpoints)('%s: 401 without a session, 400 for an id that is no UUID', async (_name, call) => {
      const response = await call(randomUUID(), '').expect(401);
      expect(response.body).toEqual(AUTH_REQUIRED);
      expect((await call('not-a-uuid', admin).expect(400)).body).toEqual({ message: expect.any(String) });
    });
  });
});
