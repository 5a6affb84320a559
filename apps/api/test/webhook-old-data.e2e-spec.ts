import Redis from 'ioredis';
import { Client } from 'pg';
import {
  ApiWithUser,
  createWebhookSource,
  FakeClock,
  Http,
  startApiWithUser,
  TEST_REDIS_URL,
} from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { postTelemetry } from './support/api-harness';

const ACCEPTED = { message: 'Data accepted', stored: true };
const THROTTLED = { message: 'Data accepted', stored: false, reason: 'throttled' };
const DUPLICATE = { message: 'Duplicate message' };
const YEAR_MS = 365 * 24 * 3600_000;

/**
 * One stored point per source per 10 s of device time holds at any age: a timestamp older than
 * the Redis throttle set remembers is checked against the stored rows, and against old messages
 * arriving at the same time.
 */
describe('webhook: the throttle for data older than a day', () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let redis: Redis;
  let cookie: string;
  const clock = new FakeClock(new Date('2026-06-01T12:00:00Z'));
  const yearAgo = clock.now().getTime() - YEAR_MS;

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp, { clock });
    ({ http, db, cookie } = harness);
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    redis?.disconnect();
    await harness?.close();
  });

  const post = (own: { id: string; secret: string }, ts: number, solarPower: number) =>
    postTelemetry(http, own, { timestamp: new Date(ts).toISOString(), solarPower });
  const storedTimes = async (id: string) =>
    (
      await db.query<{ ts: Date }>('SELECT ts FROM telemetry WHERE sun_source_id = $1 ORDER BY ts', [id])
    ).rows.map((row) => row.ts.getTime());
  /** What Redis remembers of a source: its windows, the duplicate markers, the budget. */
  async function forgetInRedis(id: string): Promise<void> {
    const keys = await redis.keys(`${harness.env.config.redisKeyPrefix}telemetry:{${id}}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }

  it('stores one point of a 1 ms-spaced flood of year-old data sent all at once', async () => {
    const own = await createWebhookSource(http, cookie);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) => post(own, yearAgo + index, index)),
    );
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const bodies = responses.map((response) => response.body as object);
    expect(bodies.filter((body) => JSON.stringify(body) === JSON.stringify(ACCEPTED))).toHaveLength(1);
    expect(bodies.filter((body) => JSON.stringify(body) === JSON.stringify(THROTTLED))).toHaveLength(199);
    expect(await storedTimes(own.id)).toHaveLength(1);
  });

  it('checks an old message against rows stored long ago, once Redis has forgotten them', async () => {
    const own = await createWebhookSource(http, cookie);
    const stored = yearAgo + 60_000;
    await db.query('SELECT ensure_telemetry_partition($1::date)', [new Date(stored).toISOString()]);
    await db.query(`INSERT INTO telemetry (sun_source_id, ts, raw) VALUES ($1, $2, '{}')`, [
      own.id,
      new Date(stored).toISOString(),
    ]);
    await forgetInRedis(own.id);

    expect((await post(own, stored + 3_000, 1).expect(200)).body).toEqual(THROTTLED);
    expect((await post(own, stored - 9_999, 2).expect(200)).body).toEqual(THROTTLED);
    expect((await post(own, stored + 10_000, 3).expect(200)).body).toEqual(ACCEPTED);
    expect((await post(own, stored - 10_000, 4).expect(200)).body).toEqual(ACCEPTED);
    expect(await storedTimes(own.id)).toEqual([stored - 10_000, stored, stored + 10_000]);
  });

  it('stores a backfill of year-old data 10 s apart; re-sending it stores nothing new', async () => {
    const own = await createWebhookSource(http, cookie);
    const start = yearAgo + 3_600_000;
    const times = Array.from({ length: 50 }, (_, index) => start + index * 10_000);
    const sendAll = (shift: number) => Promise.all(times.map((ts, index) => post(own, ts + shift, index)));

    const first = await sendAll(0);
    expect(first.map((response) => [response.status, response.body])).toEqual(
      times.map(() => [200, ACCEPTED]),
    );
    expect(await storedTimes(own.id)).toEqual(times);

    // The same messages again: the duplicate window answers.
    const again = await sendAll(0);
    expect(again.map((response) => [response.status, response.body])).toEqual(
      times.map(() => [409, DUPLICATE]),
    );

    // Once Redis has forgotten: the stored rows answer, for the same timestamps and for near ones.
    await forgetInRedis(own.id);
    const later = await sendAll(0);
    expect(later.map((response) => [response.status, response.body])).toEqual(
      times.map(() => [409, DUPLICATE]),
    );
    const shifted = await sendAll(1);
    expect(shifted.map((response) => [response.status, response.body])).toEqual(
      times.map(() => [200, THROTTLED]),
    );
    expect(await storedTimes(own.id)).toEqual(times);
  });
});
