import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { OpenMeteoClient, WeatherService } from '@solar/domain';
import {
  createTestEnvironment,
  FakeClock,
  FakeForecastOptions,
  FakeOpenMeteo,
  FakeOpenMeteoMode,
  Http,
  OpenMeteoBody,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

/** 00:30 on 11 June in Berlin (UTC+2), still 10 June in UTC and in Honolulu (UTC-10). */
const NOW = new Date('2026-06-10T22:30:00Z');
const BERLIN = { firstDate: '2026-06-11', utcOffsetSeconds: 7200, timezone: 'Europe/Berlin' };
const DEFAULTS: FakeForecastOptions = {
  ...BERLIN,
  timezoneAbbreviation: 'GMT+2',
  variant: 0,
  legacyWeatherCodeName: false,
};
const TIMEOUT_MS = 300;
const UNAVAILABLE = { message: 'Weather provider unavailable' };
const NEEDS_COORDINATES = { message: 'Source needs latitude and longitude' };
const NOT_FOUND = { message: 'Sun source not found' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LONGITUDE = 13.405;

type Body = Record<string, unknown>;

/** The records the API returns for days `from..from+count` of a provider answer. */
function recordsOf(sunSourceId: string, body: OpenMeteoBody, from = 0, count = 8): Body[] {
  const daily = body.daily;
  return daily.time.slice(from, from + count).map((date, offset) => {
    const index = from + offset;
    return {
      id: expect.stringMatching(UUID),
      sunSourceId,
      date,
      temperatureMax: daily.temperature_2m_max[index],
      temperatureMin: daily.temperature_2m_min[index],
      shortwaveRadiationSum: daily.shortwave_radiation_sum[index],
      weatherCode: daily.weather_code[index],
      uvIndexMax: daily.uv_index_max[index],
      precipitationSum: daily.precipitation_sum[index],
      sunrise: daily.sunrise[index],
      sunset: daily.sunset[index],
    };
  });
}

/** The hourly series of an answer, each local time turned into its UTC instant. */
function hoursOf(body: OpenMeteoBody): Body[] {
  const hourly = body.hourly;
  return hourly.time.map((local, index) => ({
    ts: new Date(Date.parse(`${local as string}:00Z`) - body.utc_offset_seconds * 1000),
    temperature: hourly.temperature_2m[index],
    shortwaveRadiation: hourly.shortwave_radiation[index],
    cloudCover: hourly.cloud_cover[index],
    weatherCode: hourly.weather_code[index],
    uvIndex: hourly.uv_index[index],
    precipitation: hourly.precipitation[index],
  }));
}

describe('weather', () => {
  let fake: FakeOpenMeteo;
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;
  let owner: { id: string; cookie: string };
  let other: { id: string; cookie: string };
  const clock = new FakeClock(NOW);
  let sources = 0;

  beforeAll(async () => {
    fake = await new FakeOpenMeteo(DEFAULTS).start();
    env = await createTestEnvironment({ WEATHER_API_URL: fake.url });
    // The real api module, with a client that gives up after 300 ms instead of 10 s.
    ({ app, http } = await startApi(env.config, clock, (builder) =>
      builder
        .overrideProvider(OpenMeteoClient)
        .useValue(new OpenMeteoClient(env.config, { timeoutMs: TIMEOUT_MS })),
    ));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [owner, other] = [await signUp(http, env.mail), await signUp(http, env.mail)];
  });

  beforeEach(() => fake.reset(DEFAULTS));

  afterAll(async () => {
    await app.close();
    await db.end();
    await fake.stop();
    await env.teardown();
  });

  /** A source of the owner at a latitude no other test uses, so the fake's requests tell them apart. */
  async function createSource(
    coordinates: { latitude?: number | null; longitude?: number | null } = {},
  ): Promise<{ id: string; latitude: number; longitude: number }> {
    sources += 1;
    const place = { latitude: 40 + sources * 0.25, longitude: LONGITUDE, ...coordinates };
    const response = await http
      .post('/api/sunsources')
      .set('Cookie', owner.cookie)
      .send({ name: `Roof ${sources}`, connectionType: 'Webhook', ...place })
      .expect(201);
    return { id: response.body.id, latitude: place.latitude!, longitude: place.longitude! };
  }

  const getWeather = (id: string, cookie = owner.cookie) =>
    http.get(`/api/weather/${id}`).set('Cookie', cookie);
  const refresh = (id: string, cookie = owner.cookie) =>
    http.post(`/api/weather/${id}/refresh`).set('Cookie', cookie);

  /** Every stored row of a source, as PostgreSQL has them. */
  async function storedRows(id: string): Promise<{ daily: Body[]; hourly: Body[] }> {
    const daily = await db.query(
      `SELECT *, to_char(date, 'YYYY-MM-DD') AS day FROM weather_daily WHERE sun_source_id = $1 ORDER BY date`,
      [id],
    );
    const hourly = await db.query('SELECT * FROM weather_hourly WHERE sun_source_id = $1 ORDER BY ts', [id]);
    return { daily: daily.rows, hourly: hourly.rows };
  }

  it('needs a session', async () => {
    const id = randomUUID();
    await http.get(`/api/weather/${id}`).expect(401);
    await http.post(`/api/weather/${id}/refresh`).expect(401);
  });

  it('fetches on the first read, with Open-Meteo’s parameters, and returns the exact records', async () => {
    const source = await createSource();
    const response = await getWeather(source.id).expect(200);
    const body = fake.bodyFor(source);
    expect(response.body).toEqual(recordsOf(source.id, body));

    const [sent] = fake.requestsFor(source.latitude);
    expect(sent.path).toBe('/v1/forecast');
    expect(Object.fromEntries(sent.params)).toEqual({
      latitude: String(source.latitude),
      longitude: String(LONGITUDE),
      daily:
        'temperature_2m_max,temperature_2m_min,shortwave_radiation_sum,weather_code,uv_index_max,precipitation_sum,sunrise,sunset',
      hourly: 'temperature_2m,shortwave_radiation,cloud_cover,weather_code,uv_index,precipitation',
      timezone: 'auto',
      forecast_days: '8',
      timeformat: 'iso8601',
    });

    // Stored: the next read answers from the database, not the provider.
    expect((await getWeather(source.id).expect(200)).body).toEqual(response.body);
    expect(fake.requestsFor(source.latitude)).toHaveLength(1);

    // The hourly series, in UTC: local midnight of 11 June in Berlin is 22:00Z on 10 June.
    const hours = await app.get(WeatherService).hourly(source.id, {
      from: new Date('2026-06-01T00:00:00Z'),
      to: new Date('2026-07-01T00:00:00Z'),
    });
    expect(hours).toHaveLength(192);
    expect(hours[0].ts).toEqual(new Date('2026-06-10T22:00:00Z'));
    expect(hours).toEqual(hoursOf(body));
    const window = await app.get(WeatherService).hourly(source.id, {
      from: new Date('2026-06-11T10:00:00Z'),
      to: new Date('2026-06-11T13:00:00Z'),
    });
    expect(window.map((hour) => hour.ts.toISOString())).toEqual([
      '2026-06-11T10:00:00.000Z',
      '2026-06-11T11:00:00.000Z',
      '2026-06-11T12:00:00.000Z',
    ]);
  });

  it('refresh upserts: a later forecast updates the rows in place, never duplicates them', async () => {
    const source = await createSource();
    const first = await refresh(source.id).expect(200);
    expect(first.body).toEqual(recordsOf(source.id, fake.bodyFor(source)));

    fake.reset({ variant: 1 });
    const later = fake.bodyFor(source);
    const second = await refresh(source.id).expect(200);
    expect(second.body).toEqual(recordsOf(source.id, later));
    expect(second.body.map((record: Body) => record.id)).toEqual(first.body.map((record: Body) => record.id));
    expect(second.body).not.toEqual(first.body);

    const rows = await storedRows(source.id);
    expect(rows.daily).toHaveLength(8);
    expect(rows.hourly).toHaveLength(192);
    expect(rows.hourly.map((row) => row.temperature)).toEqual(later.hourly.temperature_2m);
    expect(rows.daily.every((row) => (row.fetched_at as Date).getTime() === NOW.getTime())).toBe(true);
  });

  it('a source that moves gets the new place’s forecast on its next read, not the stored one', async () => {
    const source = await createSource();
    await getWeather(source.id).expect(200);
    const moved = { latitude: source.latitude + 10, longitude: LONGITUDE + 1 };
    await http.put(`/api/sunsources/${source.id}`).set('Cookie', owner.cookie).send(moved).expect(200);

    const response = await getWeather(source.id).expect(200);
    expect(response.body).toEqual(recordsOf(source.id, fake.bodyFor(moved)));
    expect(response.body).not.toEqual(recordsOf(source.id, fake.bodyFor(source)));
    expect(fake.requestsFor(moved.latitude)).toHaveLength(1);
    const rows = await storedRows(source.id);
    expect(rows.daily).toHaveLength(8);
    expect(
      rows.daily.every((row) => row.latitude === moved.latitude && row.longitude === moved.longitude),
    ).toBe(true);

    // Stored again for the new place: the next read answers from the database.
    expect((await getWeather(source.id).expect(200)).body).toEqual(response.body);
    expect(fake.requestsFor(moved.latitude)).toHaveLength(1);
    expect(fake.requestsFor(source.latitude)).toHaveLength(1);
  });

  it('a moved source whose new place cannot be fetched answers 503, not the old place’s forecast', async () => {
    const source = await createSource();
    await getWeather(source.id).expect(200);
    const moved = { latitude: source.latitude + 10 };
    await http.put(`/api/sunsources/${source.id}`).set('Cookie', owner.cookie).send(moved).expect(200);
    fake.answerWith('http-500', moved);

    expect((await getWeather(source.id).expect(503)).body).toEqual(UNAVAILABLE);
  });

  it('reads `weathercode`, the name older API versions answer with', async () => {
    const source = await createSource();
    fake.reset({ legacyWeatherCodeName: true });
    const response = await refresh(source.id).expect(200);
    expect(response.body).toEqual(recordsOf(source.id, fake.bodyFor(source)));
    expect(response.body.every((record: Body) => Number.isInteger(record.weatherCode))).toBe(true);
  });

  it.each([
    ['Berlin, where 10 June is yesterday', BERLIN, '2026-06-10', 1],
    [
      'Honolulu, where 10 June is today',
      { utcOffsetSeconds: -36000, timezone: 'Pacific/Honolulu' },
      '2026-06-10',
      0,
    ],
  ])('returns the days from today at the source on: %s', async (_place, place, firstDate, past) => {
    const source = await createSource();
    fake.reset({ ...place, firstDate });
    const body = fake.bodyFor(source);
    expect((await refresh(source.id).expect(200)).body).toEqual(recordsOf(source.id, body, past));
    expect((await getWeather(source.id).expect(200)).body).toEqual(recordsOf(source.id, body, past));
    // The past day is kept (history for the forecasting model), only not shown.
    expect((await storedRows(source.id)).daily).toHaveLength(8);
  });

  it('returns at most 8 days, ascending, when more are stored', async () => {
    const source = await createSource();
    await refresh(source.id).expect(200);
    fake.reset({ firstDate: '2026-06-12', variant: 2 });
    await refresh(source.id).expect(200);
    const response = await getWeather(source.id).expect(200);
    expect((await storedRows(source.id)).daily).toHaveLength(9);
    expect(response.body.map((record: Body) => record.date)).toEqual([
      '2026-06-11',
      '2026-06-12',
      '2026-06-13',
      '2026-06-14',
      '2026-06-15',
      '2026-06-16',
      '2026-06-17',
      '2026-06-18',
    ]);
  });

  it.each<FakeOpenMeteoMode>(['http-500', 'malformed-json', 'incomplete', 'hang'])(
    'provider %s: refresh answers 503 and keeps what was stored',
    async (mode) => {
      const source = await createSource();
      const before = (await refresh(source.id).expect(200)).body;
      const rows = await storedRows(source.id);

      fake.answerWith(mode);
      const started = Date.now();
      expect((await refresh(source.id).expect(503)).body).toEqual(UNAVAILABLE);
      if (mode === 'hang') expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000);

      expect(await storedRows(source.id)).toEqual(rows);
      expect((await getWeather(source.id).expect(200)).body).toEqual(before);
      // Nothing stored yet and the provider down: the first read cannot answer either.
      const fresh = await createSource();
      expect((await getWeather(fresh.id).expect(503)).body).toEqual(UNAVAILABLE);
      expect((await storedRows(fresh.id)).daily).toHaveLength(0);
    },
  );

  it('provider unreachable (connection refused): 503, data kept, and back once it answers', async () => {
    const source = await createSource();
    const before = (await refresh(source.id).expect(200)).body;
    const rows = await storedRows(source.id);
    await fake.stop();
    try {
      expect((await refresh(source.id).expect(503)).body).toEqual(UNAVAILABLE);
      expect(await storedRows(source.id)).toEqual(rows);
      expect((await getWeather(source.id).expect(200)).body).toEqual(before);
    } finally {
      await fake.start();
    }
    await refresh(source.id).expect(200);
  });

  it.each([
    ['neither coordinate', { latitude: null, longitude: null }],
    ['no longitude', { longitude: null }],
    ['no latitude', { latitude: null }],
  ])('a source with %s: 400 with a clear message, no request made', async (_case, coordinates) => {
    const source = await createSource(coordinates);
    const requests = fake.requests.length;
    expect((await getWeather(source.id).expect(400)).body).toEqual(NEEDS_COORDINATES);
    expect((await refresh(source.id).expect(400)).body).toEqual(NEEDS_COORDINATES);
    expect(fake.requests).toHaveLength(requests);
  });

  it('another user’s source, or none: 404', async () => {
    const source = await createSource();
    const requests = fake.requests.length;
    for (const id of [source.id, randomUUID()]) {
      expect((await getWeather(id, other.cookie).expect(404)).body).toEqual(NOT_FOUND);
      expect((await refresh(id, other.cookie).expect(404)).body).toEqual(NOT_FOUND);
    }
    expect(fake.requests).toHaveLength(requests);
    await getWeather('not-a-uuid').expect(400);
  });

  it('deleting the source removes its weather', async () => {
    const source = await createSource();
    await refresh(source.id).expect(200);
    expect((await storedRows(source.id)).hourly).toHaveLength(192);
    await http.delete(`/api/sunsources/${source.id}`).set('Cookie', owner.cookie).expect(204);
    expect(await storedRows(source.id)).toEqual({ daily: [], hourly: [] });
  });
});
