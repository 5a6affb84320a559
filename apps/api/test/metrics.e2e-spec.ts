import { INestApplication } from '@nestjs/common';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  lastReadUntil,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-10T12:00:00Z');
const DAY = 86_400_000;
const NOT_FOUND = { message: 'Sun source not found' };

/** Hand-made points; the expectations below are computed from them by hand. */
const FIXTURE = [
  {
    timestamp: '2026-06-09T10:00:00Z',
    solarPower: 100,
    loadPower: 50,
    stateOfCharge: 50,
    batteryVoltage: 48,
    gridVoltage: 230,
    gridFrequency: 50,
    loadPercentage: 10,
    dailyEnergyProduced: 1,
    dailyEnergyConsumed: 0.5,
    operatingMode: 'Solar',
  },
  {
    timestamp: '2026-06-09T10:30:00Z',
    solarPower: 300,
    loadPower: 70,
    stateOfCharge: 60,
    batteryVoltage: 50,
    dailyEnergyProduced: 2,
    operatingMode: 'Solar',
  },
  {
    timestamp: '2026-06-09T11:15:00Z',
    solarPower: 200,
    stateOfCharge: 40,
    dailyEnergyProduced: 3,
    operatingMode: 'Battery',
  },
  {
    timestamp: '2026-06-10T09:00:00Z',
    solarPower: 500,
    loadPower: 100,
    stateOfCharge: 80,
    dailyEnergyProduced: 0.5,
    operatingMode: 'Solar',
    faultCodes: ['F1'],
  },
];

describe('metrics and telemetry data', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let owner: { cookie: string };
  let stranger: { cookie: string };
  let source: { id: string; secret: string };
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config, clock));
    owner = await signUp(http, env.mail);
    stranger = await signUp(http, env.mail);
    source = await createSource(owner.cookie, 'Roof');
    for (const point of FIXTURE) await send(source, point);
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  const createSource = (cookie: string, name: string) => createWebhookSource(http, cookie, { name });

  async function send(target: { id: string; secret: string }, point: object): Promise<void> {
    const response = await http
      .post(`/api/webhook/sunsource/${target.id}`)
      .send({ key: target.secret, ...point });
    expect(response.body).toEqual({ message: 'Data accepted', stored: true });
  }

  const get = (path: string, cookie = owner.cookie) => http.get(path).set('Cookie', cookie);

  describe('latest and history', () => {
    it('latest is the most recent point in the SunSourceMetricsDto shape', async () => {
      const { body } = await get(`/api/sunsourcemetrics/${source.id}/latest`).expect(200);
      expect(body).toEqual({
        sunSourceId: source.id,
        timestamp: '2026-06-10T09:00:00.000Z',
        stateOfCharge: 80,
        stateOfHealth: null,
        batteryVoltage: null,
        batteryCurrent: null,
        batteryTemperature: null,
        solarVoltage: null,
        solarCurrent: null,
        solarPower: 500,
        outputVoltage: null,
        outputCurrent: null,
        loadPower: 100,
        loadPercentage: null,
        gridVoltage: null,
        gridFrequency: null,
        dailyEnergyProduced: 0.5,
        dailyEnergyConsumed: null,
        totalEnergyProduced: null,
        operatingMode: 'Solar',
        deviceStatus: null,
        faultCodes: ['F1'],
        warningCodes: null,
      });
    });

    it('latest of a source without data is 404', async () => {
      const empty = await createSource(owner.cookie, 'Empty');
      expect((await get(`/api/sunsourcemetrics/${empty.id}/latest`).expect(404)).body).toEqual({
        message: 'No telemetry for this source yet',
      });
    });

    it('history defaults to the last 24 hours, newest first', async () => {
      const { body } = await get(`/api/sunsourcemetrics/${source.id}/history`).expect(200);
      expect(body.map((point: { timestamp: string }) => point.timestamp)).toEqual([
        '2026-06-10T09:00:00.000Z',
      ]);
      const wider = await get(
        `/api/sunsourcemetrics/${source.id}/history?startTime=2026-06-01T00:00:00Z`,
      ).expect(200);
      expect(wider.body.map((point: { solarPower: number }) => point.solarPower)).toEqual([
        500, 200, 300, 100,
      ]);
    });

    it('history and hourly aggregates are streamed as the JSON PostgreSQL wrote, typed as res.json would', async () => {
      // The fixture: 4 points in 3 hours.
      for (const [path, items] of [
        ['history', 4],
        ['aggregated', 3],
      ] as const) {
        const answer = await get(
          `/api/sunsourcemetrics/${source.id}/${path}?startTime=2026-06-01T00:00:00Z&endTime=2026-06-11T00:00:00Z`,
        ).expect(200);

        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.headers['transfer-encoding']).toBe('chunked');
        expect(answer.body).toHaveLength(items);
        expect(answer.text).toBe(JSON.stringify(answer.body));
      }
    });

    it.each([
      ['0', 1],
      ['1', 1],
      ['2', 2],
      ['1000', 4],
      ['1001', 4],
    ])('history limit=%s is clamped to 1..1000 (%i points here)', async (limit, expected) => {
      const { body } = await get(
        `/api/sunsourcemetrics/${source.id}/history?startTime=2026-06-01T00:00:00Z&limit=${limit}`,
      ).expect(200);
      expect(body).toHaveLength(expected);
    });

    it('includes both ends of the window', async () => {
      const { body } = await get(
        `/api/sunsourcemetrics/${source.id}/history?startTime=2026-06-09T10:00:00Z&endTime=2026-06-09T11:15:00Z`,
      ).expect(200);
      expect(body).toHaveLength(3);
    });

    it.each([
      ['limit=abc', 'limit'],
      ['startTime=yesterday', 'startTime'],
      ['endTime=2026-13-01', 'endTime'],
      ['unknown=1', 'unknown'],
    ])('rejects %s with a validation error', async (query, field) => {
      const { body } = await get(`/api/sunsourcemetrics/${source.id}/history?${query}`).expect(400);
      expect(Object.keys(body.errors)).toEqual([field]);
    });

    it('rejects a start after the end', async () => {
      const { body } = await get(
        `/api/sunsourcemetrics/${source.id}/history?startTime=2026-06-10T00:00:00Z&endTime=2026-06-09T00:00:00Z`,
      ).expect(400);
      expect(body).toEqual({ message: 'startTime must not be after endTime' });
    });
  });

  describe('aggregated (hourly)', () => {
    it('averages, maxima and minima per UTC hour, oldest first', async () => {
      const { body } = await get(`/api/sunsourcemetrics/${source.id}/aggregated`).expect(200);
      expect(body).toEqual([
        {
          timestamp: '2026-06-09T10:00:00.000Z',
          averageBatteryVoltage: 49,
          averageStateOfCharge: 55,
          averageSolarPower: 200,
          averageLoadPercentage: 10,
          averageLoadPower: 60,
          maxSolarPower: 300,
          maxLoadPower: 70,
          minStateOfCharge: 50,
          sampleCount: 2,
        },
        expect.objectContaining({
          timestamp: '2026-06-09T11:00:00.000Z',
          averageSolarPower: 200,
          averageBatteryVoltage: null,
          sampleCount: 1,
        }),
        expect.objectContaining({
          timestamp: '2026-06-10T09:00:00.000Z',
          maxSolarPower: 500,
          minStateOfCharge: 80,
          sampleCount: 1,
        }),
      ]);
    });

    it('keeps only the last 90 days of a longer range', async () => {
      const old = await createSource(owner.cookie, 'Old');
      await send(old, {
        timestamp: new Date(NOW.getTime() - 90 * DAY - 3_600_000).toISOString(),
        solarPower: 1,
      });
      await send(old, {
        timestamp: new Date(NOW.getTime() - 90 * DAY + 3_600_000).toISOString(),
        solarPower: 2,
      });
      const start = new Date(NOW.getTime() - 120 * DAY).toISOString();
      const { body } = await get(`/api/sunsourcemetrics/${old.id}/aggregated?startTime=${start}`).expect(200);
      expect(body.map((hour: { maxSolarPower: number }) => hour.maxSolarPower)).toEqual([2]);
    });
  });

  describe('daily summary', () => {
    const day9 = {
      date: '2026-06-09',
      solarPowerAvg: 200,
      solarPowerMax: 300,
      loadPowerAvg: 60,
      loadPowerMax: 70,
      socAvg: 50,
      socMin: 40,
      socMax: 60,
      voltageAvg: 49,
      gridVoltageAvg: 230,
      gridFreqAvg: 50,
      energyProduced: 3,
      energyConsumed: 0.5,
      sampleCount: 3,
      energyProducedMethod: 'counter',
      energyConsumedMethod: 'counter',
    };

    it('summarizes UTC days, energy from the increments of the daily counters', async () => {
      const { body } = await get(`/api/sunsourcemetrics/${source.id}/daily-summary`).expect(200);
      expect(body).toEqual([
        day9,
        {
          date: '2026-06-10',
          solarPowerAvg: 500,
          solarPowerMax: 500,
          loadPowerAvg: 100,
          loadPowerMax: 100,
          socAvg: 80,
          socMin: 80,
          socMax: 80,
          voltageAvg: null,
          gridVoltageAvg: null,
          gridFreqAvg: null,
          // Below the day before's 3: the counter restarted at midnight, 0.5 is new.
          energyProduced: 0.5,
          // No counter, and a single load reading: no interval to integrate.
          energyConsumed: null,
          sampleCount: 1,
          energyProducedMethod: 'counter',
          energyConsumedMethod: null,
        },
      ]);
    });

    it('switches to ISO weeks above 60 days: weighted averages, summed energy, kept extremes', async () => {
      const end = NOW.toISOString();
      const sixty = new Date(NOW.getTime() - 60 * DAY).toISOString();
      const daily = await get(
        `/api/sunsourcemetrics/${source.id}/daily-summary?startTime=${sixty}&endTime=${end}`,
      ).expect(200);
      expect(daily.body).toHaveLength(2);
      const beyond = new Date(NOW.getTime() - 60 * DAY - 1).toISOString();
      const weekly = await get(
        `/api/sunsourcemetrics/${source.id}/daily-summary?startTime=${beyond}&endTime=${end}`,
      ).expect(200);
      expect(weekly.body).toEqual([
        {
          date: '2026-06-08',
          solarPowerAvg: (100 + 300 + 200 + 500) / 4,
          solarPowerMax: 500,
          loadPowerAvg: (50 + 70 + 100) / 3,
          loadPowerMax: 100,
          socAvg: (50 + 60 + 40 + 80) / 4,
          socMin: 40,
          socMax: 80,
          voltageAvg: 49,
          gridVoltageAvg: 230,
          gridFreqAvg: 50,
          energyProduced: 3.5,
          energyConsumed: 0.5,
          sampleCount: 4,
          energyProducedMethod: 'counter',
          energyConsumedMethod: 'counter',
        },
      ]);
    });

    it('accepts 400 days and refuses more', async () => {
      const end = NOW.toISOString();
      await get(
        `/api/sunsourcemetrics/${source.id}/daily-summary?startTime=${new Date(NOW.getTime() - 400 * DAY).toISOString()}&endTime=${end}`,
      ).expect(200);
      const { body } = await get(
        `/api/sunsourcemetrics/${source.id}/daily-summary?startTime=${new Date(NOW.getTime() - 400 * DAY - 1).toISOString()}&endTime=${end}`,
      ).expect(400);
      expect(body).toEqual({ message: 'Range exceeds 400 days' });
    });
  });

  describe('faults and batch latest', () => {
    it('lists the caller’s sources whose latest point has fault or warning codes', async () => {
      const healed = await createSource(owner.cookie, 'Healed');
      await send(healed, { timestamp: '2026-06-10T08:00:00Z', solarPower: 1, warnings: 'W1' });
      await send(healed, { timestamp: '2026-06-10T08:10:00Z', solarPower: 1 });
      const warned = await createSource(owner.cookie, 'Warned');
      await send(warned, { timestamp: '2026-06-10T08:00:00Z', solarPower: 1, warnings: 'W2' });
      const foreign = await createSource(stranger.cookie, 'Foreign');
      await send(foreign, { timestamp: '2026-06-10T08:00:00Z', solarPower: 1, faults: 'F9' });

      const { body } = await get('/api/sunsourcemetrics/faults').expect(200);
      const ids = body.map((point: { sunSourceId: string }) => point.sunSourceId).sort();
      expect(ids).toEqual([source.id, warned.id].sort());
      expect(
        body.find((point: { sunSourceId: string }) => point.sunSourceId === warned.id).warningCodes,
      ).toEqual(['W2']);
    });

    it('maps each owned id with data to its latest point, leaving out the rest', async () => {
      const foreign = await createSource(stranger.cookie, 'Foreign2');
      await send(foreign, { timestamp: '2026-06-10T08:00:00Z', solarPower: 1 });
      const empty = await createSource(owner.cookie, 'Empty2');
      const unknown = '7d444840-9dc0-41d1-b245-5ffdce74fad2';
      const { body } = await http
        .post('/api/sunsourcemetrics/batch/latest')
        .set('Cookie', owner.cookie)
        .send([source.id, foreign.id, empty.id, unknown, source.id])
        .expect(200);
      expect(Object.keys(body)).toEqual([source.id]);
      expect(body[source.id].timestamp).toBe('2026-06-10T09:00:00.000Z');
    });

    it.each([
      ['50 ids', Array.from({ length: 50 }, () => '7d444840-9dc0-41d1-b245-5ffdce74fad2'), 200, undefined],
      [
        '51 ids',
        Array.from({ length: 51 }, () => '7d444840-9dc0-41d1-b245-5ffdce74fad2'),
        400,
        'At most 50 source ids',
      ],
      ['an object', { ids: [] }, 400, 'Body must be a JSON array of source ids'],
      ['a non-UUID', ['nope'], 400, 'Every source id must be a UUID'],
      ['an empty array', [], 200, undefined],
    ])('batch with %s answers %i', async (_case, body, status, message) => {
      const response = await http
        .post('/api/sunsourcemetrics/batch/latest')
        .set('Cookie', owner.cookie)
        .send(body)
        .expect(status);
      expect(response.body).toEqual(message ? { message } : {});
    });
  });

  describe('report', () => {
    it('custom: summary, operating modes, energy and hourly data of the period', async () => {
      const { body } = await get(
        `/api/sunsourcedata/report/${source.id}?period=custom&startDateParam=2026-06-09T00:00:00Z&endDateParam=2026-06-09T23:59:59Z`,
      ).expect(200);
      expect(body).toEqual({
        source: { name: 'Roof', iconUrl: null },
        period: 'custom',
        startDate: '2026-06-09T00:00:00.000Z',
        endDate: '2026-06-09T23:59:59.000Z',
        generatedAt: NOW.toISOString(),
        dataPoints: 3,
        summary: {
          avgSolarPower: 200,
          maxSolarPower: 300,
          avgStateOfCharge: 50,
          minStateOfCharge: 40,
          avgBatteryVoltage: 49,
          avgLoadPower: 60,
          maxLoadPower: 70,
          totalEnergyProduced: 3,
          totalEnergyConsumed: 0.5,
          operatingModes: [
            { mode: 'Solar', count: 2, percentage: 66.67 },
            { mode: 'Battery', count: 1, percentage: 33.33 },
          ],
        },
        hourlyData: [
          expect.objectContaining({ timestamp: '2026-06-09T10:00:00.000Z', sampleCount: 2 }),
          expect.objectContaining({ timestamp: '2026-06-09T11:00:00.000Z', sampleCount: 1 }),
        ],
      });
    });

    it.each([
      ['today', 1, '2026-06-10T00:00:00.000Z', NOW.toISOString()],
      ['yesterday', 3, '2026-06-09T00:00:00.000Z', '2026-06-09T23:59:59.999Z'],
      ['week', 4, '2026-06-03T12:00:00.000Z', NOW.toISOString()],
    ])('%s covers %i points from %s to %s', async (period, points, start, end) => {
      const { body } = await get(`/api/sunsourcedata/report/${source.id}?period=${period}`).expect(200);
      expect(body).toMatchObject({ period, dataPoints: points, startDate: start, endDate: end });
    });

    it('sums energy over the days of the range', async () => {
      const { body } = await get(`/api/sunsourcedata/report/${source.id}?period=week`).expect(200);
      expect(body.summary.totalEnergyProduced).toBe(3.5);
    });

    it.each([
      ['period=month', 400, { errors: { period: ['period must be one of today, yesterday, week, custom'] } }],
      ['period=custom', 400, { message: 'A custom report needs startDateParam and endDateParam' }],
      ['', 400, { errors: { period: ['period must be one of today, yesterday, week, custom'] } }],
    ])('refuses %p', async (query, status, body) => {
      expect((await get(`/api/sunsourcedata/report/${source.id}?${query}`).expect(status)).body).toEqual(
        body,
      );
    });
  });

  describe('counting, size, raw payloads, stats and cleanup', () => {
    it('count, size and raw answer for the source', async () => {
      expect((await get(`/api/sunsourcedata/count/${source.id}`).expect(200)).body).toEqual({ count: 4 });
      const size = await get(`/api/sunsourcedata/size/${source.id}`).expect(200);
      expect(size.body.sizeBytes).toBeGreaterThan(4 * 100);
      const raw = await get(`/api/sunsourcedata/raw/${source.id}?limit=2`).expect(200);
      expect(raw.body).toEqual([
        { timestamp: '2026-06-10T09:00:00.000Z', receivedAt: expect.any(String), payload: FIXTURE[3] },
        { timestamp: '2026-06-09T11:15:00.000Z', receivedAt: expect.any(String), payload: FIXTURE[2] },
      ]);
    });

    it('stats lists each of the caller’s sources with its count, last time and latest point', async () => {
      const { body } = await get('/api/sunsourcedata/stats').expect(200);
      const roof = body.find((entry: { sunSourceId: string }) => entry.sunSourceId === source.id);
      expect(roof).toEqual({
        sunSourceId: source.id,
        name: 'Roof',
        messageCount: 4,
        lastMessageTime: '2026-06-10T09:00:00.000Z',
        latestMetrics: expect.objectContaining({ solarPower: 500 }),
      });
      const theirs = await get('/api/sunsourcedata/stats', stranger.cookie).expect(200);
      expect(theirs.body.some((entry: { sunSourceId: string }) => entry.sunSourceId === source.id)).toBe(
        false,
      );
    });

    it('cleanup deletes every point of the source and says how many', async () => {
      const doomed = await createSource(owner.cookie, 'Doomed');
      await send(doomed, { timestamp: '2026-06-10T08:00:00Z', solarPower: 1 });
      await send(doomed, { timestamp: '2026-06-10T08:01:00Z', solarPower: 2 });
      const { body } = await http
        .delete(`/api/sunsourcedata/cleanup/${doomed.id}`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(body).toEqual({ deletedCount: 2 });
      expect((await get(`/api/sunsourcedata/count/${doomed.id}`).expect(200)).body).toEqual({ count: 0 });
    });
  });

  describe('ownership and sessions', () => {
    const routes = (id: string): Array<[string, string]> => [
      ['GET', `/api/sunsourcemetrics/${id}/latest`],
      ['GET', `/api/sunsourcemetrics/${id}/history`],
      ['GET', `/api/sunsourcemetrics/${id}/aggregated`],
      ['GET', `/api/sunsourcemetrics/${id}/daily-summary`],
      ['GET', `/api/sunsourcedata/report/${id}?period=today`],
      ['POST', `/api/sunsourcedata/downsample/${id}`],
      ['DELETE', `/api/sunsourcedata/cleanup/${id}`],
      ['GET', `/api/sunsourcedata/count/${id}`],
      ['GET', `/api/sunsourcedata/size/${id}`],
      ['GET', `/api/sunsourcedata/raw/${id}`],
    ];
    const call = (method: string, path: string) =>
      method === 'GET' ? http.get(path) : method === 'POST' ? http.post(path) : http.delete(path);

    it('another user gets 404 on every route, and the data stays', async () => {
      for (const [method, path] of routes(source.id)) {
        const response = await call(method, path).set('Cookie', stranger.cookie);
        expect([path, response.status, response.body]).toEqual([path, 404, NOT_FOUND]);
      }
      expect((await get(`/api/sunsourcedata/count/${source.id}`).expect(200)).body).toEqual({ count: 4 });
    });

    it('another user gets 404 even when the request is also wrong in itself', async () => {
      const wrong = [
        `/api/sunsourcemetrics/${source.id}/history?startTime=2026-06-02T00:00:00Z&endTime=2026-06-01T00:00:00Z`,
        `/api/sunsourcemetrics/${source.id}/aggregated?startTime=2026-06-02T00:00:00Z&endTime=2026-06-01T00:00:00Z`,
        `/api/sunsourcemetrics/${source.id}/daily-summary?startTime=2025-01-01T00:00:00Z&endTime=2026-06-01T00:00:00Z`,
        `/api/sunsourcedata/report/${source.id}?period=custom`,
      ];
      for (const path of wrong) {
        const owner = await get(path);
        expect([path, owner.status]).toEqual([path, 400]);
        const response = await http.get(path).set('Cookie', stranger.cookie);
        expect([path, response.status, response.body]).toEqual([path, 404, NOT_FOUND]);
      }
    });

    it('a source deleted through another api process is 404 here at once on every read', async () => {
      const other = await startApi(env.config, clock);
      try {
        const doomed = await createSource(owner.cookie, 'Doomed');
        await send(doomed, FIXTURE[3]);
        const reads = routes(doomed.id).filter(([method]) => method === 'GET');
        // This process now remembers the source as the owner's.
        for (const [, path] of reads) expect([path, (await get(path)).status]).toEqual([path, 200]);
        await other.http.delete(`/api/sunsources/${doomed.id}`).set('Cookie', owner.cookie).expect(204);
        // The notice crosses Redis: a moment, far below the cache's 30 s.
        const history = `/api/sunsourcemetrics/${doomed.id}/history`;
        const status = await lastReadUntil(
          async () => (await get(history)).status,
          (seen) => seen === 404,
        );
        expect(status).toBe(404);
        for (const [, path] of reads) {
          const response = await get(path);
          expect([path, response.status, response.body]).toEqual([path, 404, NOT_FOUND]);
        }
      } finally {
        await other.app.close();
      }
    });

    it("a source renamed through another api process has its new heading in this one's report at once", async () => {
      const other = await startApi(env.config, clock);
      try {
        const renamed = await createSource(owner.cookie, 'Before');
        const report = `/api/sunsourcedata/report/${renamed.id}?period=today`;
        expect((await get(report).expect(200)).body.source).toEqual({ name: 'Before', iconUrl: null });
        await other.http
          .put(`/api/sunsources/${renamed.id}`)
          .set('Cookie', owner.cookie)
          .send({ name: 'After', iconUrl: 'https://example.com/after.png' })
          .expect(200);
        const heading = await lastReadUntil(
          async () => (await get(report).expect(200)).body.source as { name: string },
          (seen) => seen.name === 'After',
        );
        expect(heading).toEqual({ name: 'After', iconUrl: 'https://example.com/after.png' });
      } finally {
        await other.app.close();
      }
    });

    it('no session is 401; an id that is not a UUID is 400', async () => {
      for (const [method, path] of routes(source.id)) await call(method, path).expect(401);
      await get('/api/sunsourcemetrics/faults', '').expect(401);
      await get('/api/sunsourcemetrics/not-a-uuid/latest').expect(400);
    });
  });
});
