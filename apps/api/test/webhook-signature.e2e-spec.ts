import { createHmac } from 'node:crypto';
import request from 'supertest';
import { Client } from 'pg';
import { ApiWithUser, createWebhookSource, FakeClock, Http, startApiWithUser } from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { BROWSER_ORIGIN } from './support/api-harness';

const ACCEPTED = { message: 'Data accepted', stored: true };
const STALE = { message: 'Webhook timestamp outside the allowed window' };
const BAD_SIGNATURE = { message: 'Invalid webhook signature' };
const BAD_TIMESTAMP = { message: 'X-Webhook-Timestamp must be Unix seconds' };
const UNSIGNED_TIMESTAMP = { message: 'X-Webhook-Timestamp needs an X-Webhook-Secret signature' };
const MINUTE = 60_000;

/**
 * The signed timestamp: `X-Webhook-Secret` = hex HMAC-SHA256 of `{X-Webhook-Timestamp}.{raw
 * body}`, refused more than 5 minutes from the server's clock. Every case runs on both ways in:
 * a device's request (the route ahead of Express) and a browser's (Origin: the controller).
 */
describe('webhook signature with a timestamp', () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let cookie: string;
  const clock = new FakeClock(new Date('2026-06-01T12:00:00Z'));

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp, { clock });
    ({ http, db, cookie } = harness);
  });

  afterAll(async () => {
    await harness.close();
  });

  const unixSeconds = (offsetMs: number) => String(Math.floor((clock.now().getTime() + offsetMs) / 1000));
  const sign = (secret: string, signed: string) => createHmac('sha256', secret).update(signed).digest('hex');
  const storedRows = async (id: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1', [id]))
      .rows[0].n;

  type Headers = Record<string, string>;
  const routes: Array<[string, Headers]> = [
    ['a device (the route ahead of Express)', {}],
    ['a browser (the controller)', { Origin: BROWSER_ORIGIN }],
  ];

  describe.each(routes)('from %s', (_route, routeHeaders) => {
    const send = (id: string, body: string, headers: Headers): request.Test => {
      let test = http.post(`/api/webhook/sunsource/${id}`).set('Content-Type', 'application/json');
      for (const [name, value] of Object.entries({ ...routeHeaders, ...headers }))
        test = test.set(name, value);
      return test.send(body);
    };

    /** A fresh source, and a signed request for it whose timestamp is `offsetMs` from the server's clock. */
    const signedCase = async (offsetMs: number) => {
      const source = await createWebhookSource(http, cookie);
      const body = JSON.stringify({ solarPower: 1500, batterySoc: 80 });
      const timestamp = unixSeconds(offsetMs);
      const signature = sign(source.secret, `${timestamp}.${body}`);
      return { source, body, timestamp, signature };
    };

    it.each([
      ['now', 0],
      ['4 minutes old', -4 * MINUTE],
      ['4 minutes ahead', 4 * MINUTE],
    ])('stores a message signed with a timestamp %s', async (_case, offsetMs) => {
      const { source, body, timestamp, signature } = await signedCase(offsetMs);
      const response = await send(source.id, body, {
        'X-Webhook-Timestamp': timestamp,
        'X-Webhook-Secret': signature,
      }).expect(200);
      expect(response.body).toEqual(ACCEPTED);
      expect(await storedRows(source.id)).toBe(1);
    });

    it.each([
      ['6 minutes old', -6 * MINUTE],
      ['6 minutes ahead', 6 * MINUTE],
    ])('refuses a correctly signed timestamp %s', async (_case, offsetMs) => {
      const { source, body, timestamp, signature } = await signedCase(offsetMs);
      const response = await send(source.id, body, {
        'X-Webhook-Timestamp': timestamp,
        'X-Webhook-Secret': signature,
      }).expect(400);
      expect(response.body).toEqual(STALE);
      expect(await storedRows(source.id)).toBe(0);
    });

    it('refuses the same signed request replayed once its timestamp is 6 minutes old', async () => {
      const { source, body, timestamp, signature } = await signedCase(0);
      const headers = { 'X-Webhook-Timestamp': timestamp, 'X-Webhook-Secret': signature };
      await send(source.id, body, headers).expect(200);
      clock.advance(6 * MINUTE);
      expect((await send(source.id, body, headers).expect(400)).body).toEqual(STALE);
      expect(await storedRows(source.id)).toBe(1);
    });

    it('refuses a timestamp changed after signing, even to a fresher one', async () => {
      const { source, body, signature } = await signedCase(-6 * MINUTE);
      const response = await send(source.id, body, {
        'X-Webhook-Timestamp': unixSeconds(0),
        'X-Webhook-Secret': signature,
      }).expect(400);
      expect(response.body).toEqual(BAD_SIGNATURE);
      expect(await storedRows(source.id)).toBe(0);
    });

    it('refuses a signature of the body alone when a timestamp is sent', async () => {
      const { source, body, timestamp } = await signedCase(0);
      const response = await send(source.id, body, {
        'X-Webhook-Timestamp': timestamp,
        'X-Webhook-Secret': sign(source.secret, body),
      }).expect(400);
      expect(response.body).toEqual(BAD_SIGNATURE);
      expect(await storedRows(source.id)).toBe(0);
    });

    it('still stores a message whose HMAC covers the body alone (no timestamp header)', async () => {
      const { source, body } = await signedCase(0);
      const response = await send(source.id, body, { 'X-Webhook-Secret': sign(source.secret, body) }).expect(
        200,
      );
      expect(response.body).toEqual(ACCEPTED);
      expect(await storedRows(source.id)).toBe(1);
    });

    it.each([
      ['milliseconds with a fraction', '1780315200.5'],
      ['an ISO date', '2026-06-01T12:00:00Z'],
      ['a negative number', '-1780315200'],
      ['empty', ''],
      ['thirteen digits', '1780315200000'],
    ])('refuses a timestamp header that is %s', async (_case, timestamp) => {
      const { source, body } = await signedCase(0);
      const response = await send(source.id, body, {
        'X-Webhook-Timestamp': timestamp,
        'X-Webhook-Secret': sign(source.secret, `${timestamp}.${body}`),
      }).expect(400);
      expect(response.body).toEqual(BAD_TIMESTAMP);
      expect(await storedRows(source.id)).toBe(0);
    });

    it('refuses a timestamp header with only the body’s key (no signature)', async () => {
      const source = await createWebhookSource(http, cookie);
      const body = JSON.stringify({ key: source.secret, solarPower: 1 });
      const response = await send(source.id, body, { 'X-Webhook-Timestamp': unixSeconds(0) }).expect(400);
      expect(response.body).toEqual(UNSIGNED_TIMESTAMP);
      expect(await storedRows(source.id)).toBe(0);
    });
  });
});
