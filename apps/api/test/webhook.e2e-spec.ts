import { INestApplication } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { Client } from 'pg';
import Redis from 'ioredis';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  lastReadUntil,
  logIn,
  signUp,
  TEST_REDIS_URL,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const ACCEPTED = { message: 'Data accepted', stored: true };
const THROTTLED = { message: 'Data accepted', stored: false, reason: 'throttled' };
const NOT_FOUND = { message: 'Sun source not found' };
const BAD_SECRET = { message: 'Missing or invalid webhook secret' };
const UNKNOWN_SOURCE = '7d444840-9dc0-41d1-b245-5ffdce74fad2';

describe('webhook ingestion', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;
  let cookie: string;
  let source: { id: string; secret: string };
  const clock = new FakeClock(new Date('2026-06-01T12:00:00Z'));
  // Each test gets its own minute of device time, so throttle windows never overlap.
  let minute = 0;
  const nextTime = () => new Date(clock.now().getTime() - 24 * 3600_000 + ++minute * 60_000);

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'Root-Pass-123' });
    ({ app, http } = await startApi(env.config, clock));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    ({ cookie } = await signUp(http, env.mail));
    source = await createSource();
  });

  afterAll(async () => {
    await db.end();
    await app.close();
    await env.teardown();
  });

  const createSource = (body: object = {}, ownerCookie = cookie) =>
    createWebhookSource(http, ownerCookie, body);

  const postTo = (target: Http, id: string, body: object) =>
    target.post(`/api/webhook/sunsource/${id}`).send(body);
  const post = (id: string, body: unknown) => postTo(http, id, body as object);
  const rows = async (id: string) =>
    (await db.query('SELECT * FROM telemetry WHERE sun_source_id = $1 ORDER BY ts', [id])).rows;

  it('stores a message: normalized columns, the raw payload without its key, no session needed', async () => {
    const own = await createSource();
    const at = nextTime();
    const response = await post(own.id, {
      key: own.secret,
      timestamp: at.toISOString(),
      soc: '87.5',
      pvPower: 1520,
      load_power: 300,
      gridVoltage: 900, // out of range: stored as null, message still accepted
      mode: 'Battery',
      faults: 'F01, F02',
      firmware: '1.2.3',
    }).expect(200);
    expect(response.body).toEqual(ACCEPTED);

    const [row] = await rows(own.id);
    expect(row).toMatchObject({
      state_of_charge: 87.5,
      solar_power: 1520,
      load_power: 300,
      grid_voltage: null,
      operating_mode: 'Battery',
      fault_codes: ['F01', 'F02'],
      warning_codes: null,
    });
    expect(row.ts.toISOString()).toBe(at.toISOString());
    expect(row.raw).toEqual({
      timestamp: at.toISOString(),
      soc: '87.5',
      pvPower: 1520,
      load_power: 300,
      gridVoltage: 900,
      mode: 'Battery',
      faults: 'F01, F02',
      firmware: '1.2.3',
    });
    expect(JSON.stringify(row.raw)).not.toContain(own.secret);
  });

  it('takes the arrival time when the device sends no timestamp', async () => {
    const own = await createSource();
    await post(own.id, { key: own.secret, solarPower: 10 }).expect(200);
    expect((await rows(own.id))[0].ts.toISOString()).toBe(clock.now().toISOString());
  });

  it('throttles: a second message less than 10 s after a stored one is accepted but not stored', async () => {
    const at = nextTime();
    await post(source.id, { key: source.secret, timestamp: at.toISOString(), solarPower: 1 }).expect(200);
    const within = new Date(at.getTime() + 9_999).toISOString();
    expect(
      (await post(source.id, { key: source.secret, timestamp: within, solarPower: 2 }).expect(200)).body,
    ).toEqual(THROTTLED);
    const before = new Date(at.getTime() - 9_999).toISOString();
    expect(
      (await post(source.id, { key: source.secret, timestamp: before, solarPower: 3 }).expect(200)).body,
    ).toEqual(THROTTLED);
    const apart = new Date(at.getTime() + 10_000).toISOString();
    expect(
      (await post(source.id, { key: source.secret, timestamp: apart, solarPower: 4 }).expect(200)).body,
    ).toEqual(ACCEPTED);
    const stored = (await rows(source.id)).filter((row) => row.ts >= at && row.ts <= new Date(apart));
    expect(stored.map((row) => row.solar_power)).toEqual([1, 4]);
  });

  it('keeps every sample of a buffered backlog sent 10 s apart', async () => {
    const own = await createSource();
    const start = nextTime().getTime() - 3600_000;
    for (let sample = 0; sample < 6; sample++) {
      const timestamp = new Date(start + sample * 10_000).toISOString();
      await post(own.id, { key: own.secret, timestamp, loadPower: sample }).expect(200);
    }
    expect((await rows(own.id)).map((row) => row.load_power)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('answers 409 to the same message resent within 30 s, and stores it once', async () => {
    const own = await createSource();
    const message = { key: own.secret, timestamp: nextTime().toISOString(), solarPower: 5 };
    await post(own.id, message).expect(200);
    expect((await post(own.id, message).expect(409)).body).toEqual({ message: 'Duplicate message' });
    expect(await rows(own.id)).toHaveLength(1);
  });

  it('never stores a (source, timestamp) twice, even after the Redis windows forgot it', async () => {
    const own = await createSource();
    const message = { key: own.secret, timestamp: nextTime().toISOString(), solarPower: 6 };
    await post(own.id, message).expect(200);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`${env.config.redisKeyPrefix}telemetry:{${own.id}}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    expect((await post(own.id, message).expect(409)).body).toEqual({ message: 'Duplicate message' });
    expect(await rows(own.id)).toHaveLength(1);
  });

  describe('the secret', () => {
    it.each([
      ['a wrong key', (secret: string) => ({ key: `${secret}x` })],
      ['no key', () => ({})],
      ['a numeric key', () => ({ key: 12345 })],
    ])('refuses %s with 400 and stores nothing', async (_case, key) => {
      const own = await createSource();
      const response = await post(own.id, { ...key(own.secret), solarPower: 1 }).expect(400);
      expect(response.body).toEqual(BAD_SECRET);
      expect(await rows(own.id)).toHaveLength(0);
    });

    it('accepts X-Webhook-Secret, the hex HMAC-SHA256 of the raw body, in place of the key', async () => {
      const own = await createSource();
      const body = JSON.stringify({ timestamp: nextTime().toISOString(), solarPower: 7 });
      const signature = createHmac('sha256', own.secret).update(body).digest('hex');
      const response = await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('Content-Type', 'application/json')
        .set('X-Webhook-Secret', signature)
        .send(body)
        .expect(200);
      expect(response.body).toEqual(ACCEPTED);
      const wrong = await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('Content-Type', 'application/json')
        .set(
          'X-Webhook-Secret',
          signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        )
        .send(JSON.stringify({ timestamp: nextTime().toISOString(), solarPower: 8 }))
        .expect(400);
      expect(wrong.body).toEqual({ message: 'Invalid webhook signature' });
      expect(await rows(own.id)).toHaveLength(1);
    });

    it('stops accepting the old secret, by key or by signature, once rotated', async () => {
      const own = await createSource();
      // Accepted first, so the rotation has a remembered secret to replace.
      await post(own.id, { key: own.secret, timestamp: nextTime().toISOString(), solarPower: 1 }).expect(200);
      const rotated = await http
        .post(`/api/sunsources/${own.id}/rotate-secret`)
        .set('Cookie', cookie)
        .expect(200);
      const fresh = rotated.body.webhookSecret as string;
      await post(own.id, { key: own.secret, solarPower: 1 }).expect(400);
      const body = JSON.stringify({ solarPower: 1 });
      await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('X-Webhook-Secret', createHmac('sha256', own.secret).update(body).digest('hex'))
        .send(body)
        .expect(400);
      await post(own.id, { key: fresh, timestamp: nextTime().toISOString(), solarPower: 1 }).expect(200);
    });

    it('accepts a secret the owner chose', async () => {
      const own = await createSource({ webhookSecret: 'my-own-secret-of-24-chars' });
      await post(own.id, { key: 'my-own-secret-of-24-chars', solarPower: 2 }).expect(200);
    });
  });

  describe('another api instance (its own remembered credentials)', () => {
    let second: INestApplication;
    let secondHttp: Http;

    beforeAll(async () => {
      ({ app: second, http: secondHttp } = await startApi(env.config, clock));
      // Each instance subscribes to credential changes on its first lookup, and remembers
      // nothing before that: make both look once and give the subscriptions time to settle.
      for (const target of [http, secondHttp]) await postTo(target, UNKNOWN_SOURCE, {}).expect(404);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });

    afterAll(async () => {
      await second.close();
    });

    /** The change reaches the other instance through Redis: give it a moment, then insist. */
    async function eventually(check: () => Promise<number>, status: number): Promise<void> {
      expect(await lastReadUntil(check, (seen) => seen === status)).toBe(status);
    }

    it('refuses the old secret once it is rotated through this one', async () => {
      const own = await createSource();
      for (const target of [http, secondHttp]) {
        await postTo(target, own.id, {
          key: own.secret,
          timestamp: nextTime().toISOString(),
          solarPower: 1,
        }).expect(200);
      }
      const rotated = await http
        .post(`/api/sunsources/${own.id}/rotate-secret`)
        .set('Cookie', cookie)
        .expect(200);
      await eventually(
        async () => (await postTo(secondHttp, own.id, { key: own.secret, solarPower: 1 })).status,
        400,
      );
      await postTo(secondHttp, own.id, {
        key: rotated.body.webhookSecret,
        timestamp: nextTime().toISOString(),
        solarPower: 1,
      }).expect(200);
    });

    it('answers 404 once the source is switched off, deleted, or its owner deleted', async () => {
      const admin = await logIn(http, 'root@example.com', 'Root-Pass-123');
      const owner = await signUp(http, env.mail);
      const sources: Array<{ id: string; secret: string }> = [];
      for (let i = 0; i < 3; i++) sources.push(await createSource({ name: `W${i}` }, owner.cookie));
      for (const target of [http, secondHttp]) {
        for (const { id, secret } of sources) {
          await postTo(target, id, {
            key: secret,
            timestamp: nextTime().toISOString(),
            solarPower: 1,
          }).expect(200);
        }
      }
      const [switchedOff, deleted, orphaned] = sources;
      await http
        .put(`/api/sunsources/${switchedOff.id}`)
        .set('Cookie', owner.cookie)
        .send({ isActive: false })
        .expect(200);
      await http.delete(`/api/sunsources/${deleted.id}`).set('Cookie', owner.cookie).expect(204);
      await http.delete(`/api/admin/users/${owner.id}`).set('Cookie', admin).expect(204);
      for (const { id, secret } of [switchedOff, deleted, orphaned]) {
        const body = { key: secret, timestamp: nextTime().toISOString(), solarPower: 1 };
        expect((await postTo(http, id, body).expect(404)).body).toEqual(NOT_FOUND);
        await eventually(async () => (await postTo(secondHttp, id, body)).status, 404);
      }
    });
  });

  describe('404 for sources that do not take webhooks', () => {
    it('unknown, not a UUID, an MQTT source, or inactive: the same body', async () => {
      const mqtt = await http
        .post('/api/sunsources')
        .set('Cookie', cookie)
        .send({ name: 'M', connectionType: 'MQTT' })
        .expect(201);
      const inactive = await createSource();
      await http
        .put(`/api/sunsources/${inactive.id}`)
        .set('Cookie', cookie)
        .send({ isActive: false })
        .expect(200);
      for (const id of ['7d444840-9dc0-41d1-b245-5ffdce74fad2', 'not-a-uuid', mqtt.body.id, inactive.id]) {
        expect((await post(id, { key: inactive.secret, solarPower: 1 }).expect(404)).body).toEqual(NOT_FOUND);
      }
      expect(await rows(inactive.id)).toHaveLength(0);
      await http
        .put(`/api/sunsources/${inactive.id}`)
        .set('Cookie', cookie)
        .send({ isActive: true })
        .expect(200);
      await post(inactive.id, { key: inactive.secret, solarPower: 1 }).expect(200);
    });
  });

  describe('invalid payloads: 400 and nothing stored', () => {
    it.each([
      ['malformed JSON', '{"key": ', 'Malformed JSON body'],
      ['an array', '[1, 2]', 'Missing or invalid webhook secret'],
    ])('%s', async (_case, body, message) => {
      const response = await http
        .post(`/api/webhook/sunsource/${source.id}`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(400);
      expect(response.body).toEqual({ message });
    });

    it.each([
      ['no field at all', {}, 'No valid telemetry fields'],
      ['only unknown fields', { firmware: '1.0' }, 'No valid telemetry fields'],
      ['only out-of-range values', { stateOfCharge: 150, solarPower: -5 }, 'No valid telemetry fields'],
      [
        'a timestamp 6 minutes ahead',
        { solarPower: 1, timestamp: 'FUTURE' },
        'Timestamp is more than 5 minutes in the future',
      ],
      ['an unreadable timestamp', { solarPower: 1, timestamp: 'yesterday' }, 'Invalid timestamp'],
      [
        'a NUL character',
        { solarPower: 1, note: 'a\u0000b' },
        'Payload contains characters that cannot be stored (NUL or unpaired surrogates)',
      ],
      [
        'an unpaired surrogate',
        { solarPower: 1, note: '\ud800' },
        'Payload contains characters that cannot be stored (NUL or unpaired surrogates)',
      ],
    ])('%s', async (_case, fields, message) => {
      const own = await createSource();
      const body = { key: own.secret, ...fields } as Record<string, unknown>;
      if (body.timestamp === 'FUTURE')
        body.timestamp = new Date(clock.now().getTime() + 6 * 60_000).toISOString();
      expect((await post(own.id, body).expect(400)).body).toEqual({ message });
      expect(await rows(own.id)).toHaveLength(0);
    });

    it('refuses a payload nested deeper than PostgreSQL should parse, and keeps working', async () => {
      const own = await createSource();
      let deep: unknown = 'bottom';
      for (let level = 0; level < 40; level++) deep = { level: deep };
      const response = await post(own.id, { key: own.secret, solarPower: 1, deep }).expect(400);
      expect(response.body).toEqual({ message: 'Payload nested too deeply' });
      await post(own.id, { key: own.secret, solarPower: 1 }).expect(200);
    });

    it('accepts a timestamp exactly 5 minutes ahead', async () => {
      const own = await createSource();
      const timestamp = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
      await post(own.id, { key: own.secret, timestamp, solarPower: 1 }).expect(200);
    });
  });

  describe('size (at most 64 KB)', () => {
    const padded = (secret: string, size: number) => {
      const base = JSON.stringify({
        key: secret,
        solarPower: 1,
        timestamp: nextTime().toISOString(),
        pad: '',
      });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };

    it('accepts a body of exactly 64 KB', async () => {
      const own = await createSource();
      const body = padded(own.secret, 64 * 1024);
      expect(Buffer.byteLength(body)).toBe(65536);
      await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(200);
    });

    it('refuses 64 KB + 1 byte with 413', async () => {
      const own = await createSource();
      const response = await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('Content-Type', 'application/json')
        .send(padded(own.secret, 64 * 1024 + 1))
        .expect(413);
      expect(response.body).toEqual({ message: 'Request body too large' });
      expect(await rows(own.id)).toHaveLength(0);
    });
  });

  it('answers 503 when the write fails, and the device’s retry is then stored (not throttled)', async () => {
    const own = await createSource();
    const message = { key: own.secret, timestamp: nextTime().toISOString(), solarPower: 9, failMe: true };
    await db.query(
      `ALTER TABLE telemetry ADD CONSTRAINT refuse_marked CHECK (raw->>'failMe' IS NULL) NOT VALID`,
    );
    try {
      const failed = await post(own.id, message).expect(503);
      expect(failed.body).toEqual({ message: 'Telemetry could not be stored. Retry later.' });
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT refuse_marked');
    }
    expect((await post(own.id, message).expect(200)).body).toEqual(ACCEPTED);
    expect(await rows(own.id)).toHaveLength(1);
  });

  it('isolates a bad row: concurrent messages in the same batch are still stored', async () => {
    const sources = await Promise.all([createSource(), createSource(), createSource()]);
    await db.query(
      `ALTER TABLE telemetry ADD CONSTRAINT refuse_marked CHECK (raw->>'failMe' IS NULL) NOT VALID`,
    );
    let statuses: number[];
    try {
      const at = nextTime().toISOString();
      const responses = await Promise.all(
        sources.map((own, index) =>
          post(own.id, { key: own.secret, timestamp: at, solarPower: index, failMe: index === 1 || null }),
        ),
      );
      statuses = responses.map((response) => response.status);
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT refuse_marked');
    }
    expect(statuses).toEqual([200, 503, 200]);
    expect((await rows(sources[0].id)).length + (await rows(sources[2].id)).length).toBe(2);
  });

  it('refuses for good, with 400, a row the database refuses for its values; its batch-mates are stored', async () => {
    const sources = await Promise.all([createSource(), createSource(), createSource()]);
    // What a value the database cannot compute with raises (SQLSTATE 22003), as a trigger.
    await db.query(`
      CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.raw->>'failMe' IS NOT NULL THEN
          RAISE EXCEPTION 'value out of range: underflow' USING ERRCODE = '22003';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked BEFORE INSERT ON telemetry FOR EACH ROW EXECUTE FUNCTION refuse_marked();`);
    let responses: request.Response[];
    const at = nextTime().toISOString();
    try {
      responses = await Promise.all(
        sources.map((own, index) =>
          post(own.id, { key: own.secret, timestamp: at, solarPower: index, failMe: index === 1 || null }),
        ),
      );
    } finally {
      await db.query('DROP TRIGGER refuse_marked ON telemetry; DROP FUNCTION refuse_marked()');
    }
    expect(responses.map((response) => response.status)).toEqual([200, 400, 200]);
    expect(responses[1].body).toEqual({ message: 'Payload values cannot be stored' });
    expect((await rows(sources[0].id)).length + (await rows(sources[2].id)).length).toBe(2);
    // Nothing of it is remembered: the same moment, sent again as it can be stored, is stored.
    const own = sources[1];
    await post(own.id, { key: own.secret, timestamp: at, solarPower: 1 }).expect(200);
    expect((await rows(own.id)).map((row) => row.solar_power)).toEqual([1]);
  });

  it('reads a power too small for any meter as 0, which the hourly energy can compute with', async () => {
    const own = await createSource();
    const at = nextTime();
    for (const [offset, solarPower] of [
      [0, 0],
      [20_000, 5e-324],
      [40_000, 1e-320],
    ] as const) {
      const timestamp = new Date(at.getTime() + offset).toISOString();
      expect((await post(own.id, { key: own.secret, timestamp, solarPower }).expect(200)).body).toEqual(
        ACCEPTED,
      );
    }
    expect((await rows(own.id)).map((row) => row.solar_power)).toEqual([0, 0, 0]);
  });

  describe('devices take a route ahead of Express; the controller answers the rest alike', () => {
    // A browser's request carries Origin (CORS must answer it), so it takes the middleware chain.
    const BROWSER = 'https://elsewhere.example';
    /** Headers whose value is per response, or which only CORS sets. */
    const VARYING = new Set(['date', 'x-request-id', 'content-length', 'connection', 'keep-alive']);
    const shape = (response: request.Response) => ({
      status: response.status,
      body: response.body as unknown,
      headers: Object.fromEntries(
        Object.entries(response.headers).filter(
          ([name]) => !VARYING.has(name) && !name.startsWith('access-control-'),
        ),
      ),
    });

    type Send = (test: request.Test, own: { id: string; secret: string }, at: string) => request.Test;
    const cases: Array<[string, Send, number, string?]> = [
      ['stored', (test, own, at) => test.send({ key: own.secret, timestamp: at, solarPower: 1 }), 200],
      [
        'throttled',
        (test, own, at) => test.send({ key: own.secret, timestamp: at, solarPower: 2 }),
        200,
        '+1s',
      ],
      [
        'duplicate',
        (test, own, at) => test.send({ key: own.secret, timestamp: at, solarPower: 1 }),
        409,
        'same',
      ],
      [
        'a wrong key',
        (test, own, at) => test.send({ key: `${own.secret}x`, timestamp: at, solarPower: 1 }),
        400,
      ],
      ['malformed JSON', (test) => test.set('Content-Type', 'application/json').send('{"key": '), 400],
      ['no body', (test) => test, 400],
      ['over 64 KB', (test) => test.set('Content-Type', 'text/plain').send('x'.repeat(64 * 1024 + 1)), 413],
      [
        'a gzip body',
        (test, own, at) =>
          test
            .set('Content-Type', 'application/json')
            .set('Content-Encoding', 'gzip')
            .serialize((body: unknown) => body as string)
            .send(gzipSync(JSON.stringify({ key: own.secret, timestamp: at, solarPower: 3 }))),
        200,
        '+20s',
      ],
    ];

    it('answers every case with the same status, body and headers either way', async () => {
      // Express's entry point: what reaches it took the chain.
      const express = app.getHttpAdapter().getInstance() as {
        handle: (request: { originalUrl: string }) => void;
      };
      const chain = jest.spyOn(express, 'handle');
      const chainCalls: Record<string, number> = {};
      try {
        const base = nextTime().getTime();
        const answers = { device: [] as unknown[], browser: [] as unknown[] };
        for (const [label, origin] of [
          ['device', undefined],
          ['browser', BROWSER],
        ] as const) {
          const own = await createSource();
          for (const [, send, , offset] of cases) {
            const at = new Date(
              base + (offset === '+1s' ? 1_000 : offset === '+20s' ? 20_000 : 0),
            ).toISOString();
            let test = http.post(`/api/webhook/sunsource/${own.id}`);
            if (origin) test = test.set('Origin', origin);
            answers[label].push(shape(await send(test, own, at)));
          }
          chainCalls[label] = chain.mock.calls.filter(([request]) =>
            request.originalUrl.startsWith('/api/webhook/'),
          ).length;
          chain.mockClear();
          expect(await rows(own.id)).toHaveLength(2);
        }
        expect(answers.device.map((answer) => (answer as { status: number }).status)).toEqual(
          cases.map(([, , status]) => status),
        );
        expect(answers.browser).toEqual(answers.device);
        expect(chainCalls).toEqual({ device: 0, browser: cases.length });
      } finally {
        chain.mockRestore();
      }
    });

    it('sends the security headers and echoes a sane X-Request-Id', async () => {
      const own = await createSource();
      const response = await http
        .post(`/api/webhook/sunsource/${own.id}`)
        .set('X-Request-Id', 'device-42.batch:7')
        .send({ key: own.secret, timestamp: nextTime().toISOString(), solarPower: 1 })
        .expect(200);
      expect(response.headers['x-request-id']).toBe('device-42.batch:7');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const generated = await post(own.id, { key: own.secret, solarPower: 1 });
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('leaves other methods, query strings and longer paths to the chain', async () => {
      const own = await createSource();
      const withQuery = await http
        .post(`/api/webhook/sunsource/${own.id}?via=query`)
        .send({ key: own.secret, timestamp: nextTime().toISOString(), solarPower: 1 })
        .expect(200);
      expect(withQuery.body).toEqual(ACCEPTED);
      await http.get(`/api/webhook/sunsource/${own.id}`).expect(404);
      await http.post(`/api/webhook/sunsource/${own.id}/more`).send({ key: own.secret }).expect(404);
      expect(await rows(own.id)).toHaveLength(1);
    });
  });

  it('counts stored telemetry in the administrator’s statistics', async () => {
    const own = await createSource();
    await post(own.id, { key: own.secret, timestamp: nextTime().toISOString(), solarPower: 1 }).expect(200);
    const admin = await logIn(http, 'root@example.com', 'Root-Pass-123');
    const { body } = await http.get('/api/admin/stats').set('Cookie', admin).expect(200);
    const counted = await db.query(
      `SELECT count(*)::int AS rows, count(*) FILTER (WHERE received_at > now() - interval '1 hour')::int AS recent FROM telemetry`,
    );
    expect(body.telemetryRows).toBe(counted.rows[0].rows);
    expect(body.messagesLastHour).toBe(counted.rows[0].recent);
    expect(body.telemetryRows).toBeGreaterThan(0);
  });
});
