import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  Http,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-10T12:00:00Z');
const NOT_FOUND = { message: 'Not found' };
const FLAGS = ['isEnabled', 'shareMonitor', 'shareWeather', 'shareForecast', 'shareReturns'] as const;
type Flags = Record<(typeof FLAGS)[number], boolean>;

/** Each public view and the flag it needs besides isEnabled. */
const VIEWS: Array<{ path: (id: string) => string; needs?: keyof Flags }> = [
  { path: (id) => `/api/sharing/public/${id}` },
  { path: (id) => `/api/sharing/public/${id}/metrics`, needs: 'shareMonitor' },
  { path: (id) => `/api/sharing/public/${id}/metrics/history`, needs: 'shareMonitor' },
  { path: (id) => `/api/sharing/public/${id}/roi`, needs: 'shareReturns' },
  { path: (id) => `/api/sharing/public/${id}/weather`, needs: 'shareWeather' },
  { path: (id) => `/api/sharing/public/${id}/forecast`, needs: 'shareForecast' },
  { path: (id) => `/api/sharing/public/${id}/forecast/accuracy`, needs: 'shareForecast' },
];

let address = 0;
/** A client address of its own (through the trusted loopback proxy), so rate limits stay apart. */
const nextAddress = () => `203.0.113.${(address++ % 250) + 1}`;

describe('sharing', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let owner: { cookie: string; id: string; email: string };
  let stranger: { cookie: string };
  let source: { id: string; secret: string; key: string };
  const weather = new FakeOpenMeteo({
    firstDate: '2026-06-10',
    utcOffsetSeconds: 7200,
    timezone: 'Europe/Vienna',
  });

  beforeAll(async () => {
    await weather.start();
    env = await createTestEnvironment({ WEATHER_API_URL: weather.url });
    ({ app, http } = await startApi(env.config, new FakeClock(NOW)));
    owner = await signUp(http, env.mail);
    stranger = await signUp(http, env.mail);
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', owner.cookie)
      .send({
        name: 'Shared roof',
        connectionType: 'Webhook',
        latitude: 48.2,
        longitude: 16.37,
        description: 'Our roof',
      })
      .expect(201);
    source = { id: created.body.id, secret: created.body.connectionDetails.webhookSecret, key: '' };
    for (const [index, minutes] of [0, 30].entries()) {
      await http
        .post(`/api/webhook/sunsource/${source.id}`)
        .send({
          key: source.secret,
          timestamp: new Date(NOW.getTime() - (60 - minutes) * 60_000).toISOString(),
          solarPower: 100 + index,
        })
        .expect(200);
    }
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
    await weather.stop();
  });

  const configure = (flags: Partial<Flags>, cookie = owner.cookie, id = source.id) =>
    http
      .put(`/api/sharing/${id}`)
      .set('Cookie', cookie)
      .send({
        isEnabled: false,
        shareMonitor: false,
        shareWeather: false,
        shareForecast: false,
        shareReturns: false,
        ...flags,
      });

  describe('configuration', () => {
    it('is all false until set, then what was set', async () => {
      const other = await http
        .post('/api/sunsources')
        .set('Cookie', owner.cookie)
        .send({ name: 'X', connectionType: 'MQTT' })
        .expect(201);
      expect(
        (await http.get(`/api/sharing/${other.body.id}`).set('Cookie', owner.cookie).expect(200)).body,
      ).toEqual({
        sunSourceId: other.body.id,
        isEnabled: false,
        shareMonitor: false,
        shareWeather: false,
        shareForecast: false,
        shareReturns: false,
      });
      const updated = await configure(
        { isEnabled: true, shareReturns: true },
        owner.cookie,
        other.body.id,
      ).expect(200);
      expect(updated.body).toEqual({
        sunSourceId: other.body.id,
        isEnabled: true,
        shareMonitor: false,
        shareWeather: false,
        shareForecast: false,
        shareReturns: true,
      });
      expect(
        (await http.get(`/api/sharing/${other.body.id}`).set('Cookie', owner.cookie).expect(200)).body,
      ).toEqual(updated.body);
    });

    it.each([
      ['a missing flag', { isEnabled: true }, 'shareMonitor'],
      [
        'a string for a flag',
        {
          isEnabled: 'yes',
          shareMonitor: false,
          shareWeather: false,
          shareForecast: false,
          shareReturns: false,
        },
        'isEnabled',
      ],
      [
        'an unknown property',
        {
          isEnabled: true,
          shareMonitor: false,
          shareWeather: false,
          shareForecast: false,
          shareReturns: false,
          shareAll: true,
        },
        'shareAll',
      ],
    ])('refuses %s', async (_case, body, field) => {
      const response = await http
        .put(`/api/sharing/${source.id}`)
        .set('Cookie', owner.cookie)
        .send(body)
        .expect(400);
      expect(Object.keys(response.body.errors)).toContain(field);
    });

    it('is the owner’s alone: 404 for another user, 401 without a session', async () => {
      const foreign = { message: 'Sun source not found' };
      expect(
        (await http.get(`/api/sharing/${source.id}`).set('Cookie', stranger.cookie).expect(404)).body,
      ).toEqual(foreign);
      expect((await configure({ isEnabled: true }, stranger.cookie).expect(404)).body).toEqual(foreign);
      await http.get(`/api/sharing/${source.id}`).expect(401);
      await http.put(`/api/sharing/${source.id}`).send({}).expect(401);
    });
  });

  describe('public views', () => {
    const combinations: Flags[] = Array.from(
      { length: 2 ** FLAGS.length },
      (_, bits) =>
        Object.fromEntries(FLAGS.map((flag, index) => [flag, Boolean(bits & (1 << index))])) as Flags,
    );

    it.each(combinations.map((flags) => [JSON.stringify(flags), flags]))(
      'with %s each view answers only if shared',
      async (_label, flags) => {
        await configure(flags).expect(200);
        const client = nextAddress();
        for (const view of VIEWS) {
          const visible = flags.isEnabled && (!view.needs || flags[view.needs]);
          const response = await http.get(view.path(source.id)).set('X-Forwarded-For', client);
          expect([view.path(source.id), response.status]).toEqual([
            view.path(source.id),
            visible ? 200 : 404,
          ]);
          if (!visible) expect(response.body).toEqual(NOT_FOUND);
        }
      },
    );

    it('shows only what a stranger may see', async () => {
      await configure({ isEnabled: true, shareMonitor: true }).expect(200);
      const client = nextAddress();
      const basic = await http
        .get(`/api/sharing/public/${source.id}`)
        .set('X-Forwarded-For', client)
        .expect(200);
      expect(basic.body).toEqual({
        sunSourceId: source.id,
        name: 'Shared roof',
        description: 'Our roof',
        iconUrl: null,
        installedCapacityWatts: null,
        shareMonitor: true,
        shareWeather: false,
        shareForecast: false,
        shareReturns: false,
      });
      const latest = await http
        .get(`/api/sharing/public/${source.id}/metrics`)
        .set('X-Forwarded-For', client)
        .expect(200);
      expect(latest.body).toMatchObject({ sunSourceId: source.id, solarPower: 101 });
      const history = await http
        .get(`/api/sharing/public/${source.id}/metrics/history?limit=1`)
        .set('X-Forwarded-For', client)
        .expect(200);
      expect(history.body.map((point: { solarPower: number }) => point.solarPower)).toEqual([101]);

      const everything = JSON.stringify([basic.body, latest.body, history.body]);
      for (const forbidden of [
        'mqttApiKey',
        'webhookSecret',
        'webhookUrl',
        'userId',
        'email',
        'latitude',
        'longitude',
        'powerGroup',
        'raw',
        source.secret,
        owner.id,
        owner.email,
      ]) {
        expect(everything).not.toContain(forbidden);
      }
    });

    it('shows the returns exactly as the owner sees them', async () => {
      await configure({ isEnabled: true, shareReturns: true }).expect(200);
      const owners = await http
        .get(`/api/roi/${source.id}/calculate`)
        .set('Cookie', owner.cookie)
        .expect(200);
      const shared = await http
        .get(`/api/sharing/public/${source.id}/roi`)
        .set('X-Forwarded-For', nextAddress())
        .expect(200);
      expect(shared.body).toEqual(owners.body);
      expect(JSON.stringify(shared.body)).not.toContain(owner.id);
    });

    it('shows the weather exactly as the owner sees it', async () => {
      await configure({ isEnabled: true, shareWeather: true }).expect(200);
      const owners = await http.get(`/api/weather/${source.id}`).set('Cookie', owner.cookie).expect(200);
      const shared = await http
        .get(`/api/sharing/public/${source.id}/weather`)
        .set('X-Forwarded-For', nextAddress())
        .expect(200);
      expect(shared.body).toEqual(owners.body);
      expect(shared.body.length).toBeGreaterThan(0);
    });

    it('shows the forecast exactly as the owner sees it', async () => {
      await configure({ isEnabled: true, shareForecast: true }).expect(200);
      const owners = await http
        .get(`/api/predictions/latest/${source.id}`)
        .set('Cookie', owner.cookie)
        .expect(200);
      const shared = await http
        .get(`/api/sharing/public/${source.id}/forecast`)
        .set('X-Forwarded-For', nextAddress())
        .expect(200);
      expect(shared.body).toEqual(owners.body);
      expect(shared.body).toEqual({ exists: false, data: null });

      const db = new Client({ connectionString: env.config.databaseUrl });
      await db.connect();
      try {
        await db.query(
          `INSERT INTO predictions (sun_source_id, job_id, predictions, daily) VALUES ($1, 'predict_x_1', $2, $3)`,
          [
            source.id,
            JSON.stringify([{ timestamp: NOW.toISOString(), solarPower: 1, loadPower: 2, stateOfCharge: 3 }]),
            JSON.stringify([
              { date: '2026-06-10', solarProductionKwh: 4, loadConsumptionKwh: 5, batteryChargeKwh: 6 },
            ]),
          ],
        );
      } finally {
        await db.end();
      }
      const stored = await http
        .get(`/api/sharing/public/${source.id}/forecast`)
        .set('X-Forwarded-For', nextAddress())
        .expect(200);
      expect(stored.body).toEqual(
        (await http.get(`/api/predictions/latest/${source.id}`).set('Cookie', owner.cookie).expect(200)).body,
      );
      expect(stored.body).toMatchObject({
        exists: true,
        data: { jobId: 'predict_x_1', daily: [{ date: '2026-06-10' }] },
      });
      expect(JSON.stringify(stored.body)).not.toContain(owner.id);
    });

    it('answers 404 alike for an unknown source and for an id that is not one', async () => {
      const client = nextAddress();
      for (const id of ['7d444840-9dc0-41d1-b245-5ffdce74fad2', 'not-an-id']) {
        for (const view of VIEWS) {
          expect((await http.get(view.path(id)).set('X-Forwarded-For', client).expect(404)).body).toEqual(
            NOT_FOUND,
          );
        }
      }
    });

    it('stops sharing at once when the owner switches it off, or deletes the source', async () => {
      await configure({ isEnabled: true, shareMonitor: true }).expect(200);
      const client = nextAddress();
      await http.get(`/api/sharing/public/${source.id}/metrics`).set('X-Forwarded-For', client).expect(200);
      await configure({ isEnabled: false, shareMonitor: true }).expect(200);
      await http.get(`/api/sharing/public/${source.id}/metrics`).set('X-Forwarded-For', client).expect(404);

      const doomed = await http
        .post('/api/sunsources')
        .set('Cookie', owner.cookie)
        .send({ name: 'D', connectionType: 'MQTT' })
        .expect(201);
      await configure({ isEnabled: true }, owner.cookie, doomed.body.id).expect(200);
      await http.get(`/api/sharing/public/${doomed.body.id}`).set('X-Forwarded-For', client).expect(200);
      await http.delete(`/api/sunsources/${doomed.body.id}`).set('Cookie', owner.cookie).expect(204);
      expect(
        (await http.get(`/api/sharing/public/${doomed.body.id}`).set('X-Forwarded-For', client).expect(404))
          .body,
      ).toEqual(NOT_FOUND);
    });

    it('limits each client address to 120 requests a minute', async () => {
      await configure({ isEnabled: true }).expect(200);
      const greedy = nextAddress();
      for (let request = 1; request <= 120; request++) {
        await http.get(`/api/sharing/public/${source.id}`).set('X-Forwarded-For', greedy).expect(200);
      }
      const limited = await http
        .get(`/api/sharing/public/${source.id}`)
        .set('X-Forwarded-For', greedy)
        .expect(429);
      expect(limited.body).toEqual({ message: 'Too many requests. Try again later.' });
      expect(Number(limited.headers['retry-after'] ?? limited.headers['retry-after-public'])).toBeGreaterThan(
        0,
      );
      await http.get(`/api/sharing/public/${source.id}`).set('X-Forwarded-For', nextAddress()).expect(200);
    });
  });
});
