import { Client } from 'pg';
import request from 'supertest';
import { ApiWithUser, createWebhookSource, FakeClock, Http, startApiWithUser } from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { postTelemetry } from './support/api-harness';

const ACCEPTED = { message: 'Data accepted', stored: true };
const THROTTLED = { message: 'Data accepted', stored: false, reason: 'throttled' };
const OVER_BUDGET = { message: 'Too many messages for this source. Try again later.' };
const BUDGET = 5;
const WINDOW_SECONDS = 3600;

/** The per-source arrival budget: every message counts, stored or not; beyond it, 429. */
describe('webhook: the arrival budget of a source', () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let cookie: string;
  const clock = new FakeClock(new Date('2026-06-01T12:00:00Z'));

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp, {
      env: {
        SOURCE_MESSAGE_BUDGET: String(BUDGET),
        SOURCE_MESSAGE_BUDGET_WINDOW_SECONDS: String(WINDOW_SECONDS),
      },
      clock,
    });
    ({ http, db, cookie } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  const post = (own: { id: string; secret: string }, ts: number, via: 'device' | 'controller') =>
    postTelemetry(http, own, { timestamp: new Date(ts).toISOString(), solarPower: 1 }, via);
  const rowCount = async (id: string) =>
    Number((await db.query('SELECT count(*) AS n FROM telemetry WHERE sun_source_id = $1', [id])).rows[0].n);

  function expectOverBudget(response: request.Response): void {
    expect(response.status).toBe(429);
    expect(response.body).toEqual(OVER_BUDGET);
    const retryAfter = Number(response.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(WINDOW_SECONDS - 60);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  }

  it.each(['device', 'controller'] as const)(
    'answers 429 with Retry-After past the budget, through the %s path; other sources go on',
    async (via) => {
      const own = await createWebhookSource(http, cookie);
      const other = await createWebhookSource(http, cookie);
      const start = clock.now().getTime() - 3_600_000;
      // Throttled messages count as arrivals too.
      const answers = [];
      for (const offset of [0, 10_000, 11_000, 20_000, 21_000]) {
        answers.push((await post(own, start + offset, via).expect(200)).body);
      }
      expect(answers).toEqual([ACCEPTED, ACCEPTED, THROTTLED, ACCEPTED, THROTTLED]);

      expectOverBudget(await post(own, start + 30_000, via));
      expectOverBudget(await post(own, start + 40_000, via === 'device' ? 'controller' : 'device'));
      expect(await rowCount(own.id)).toBe(3);

      expect((await post(other, start, via).expect(200)).body).toEqual(ACCEPTED);
      expect(await rowCount(other.id)).toBe(1);
    },
  );
});
