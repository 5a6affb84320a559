import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-10T12:00:00Z');
const SOURCE_NOT_FOUND = { message: 'Sun source not found' };
const PRICE_NOT_FOUND = { message: 'Price not found' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Source {
  id: string;
  secret: string;
}

const midnight = (date: string) => `${date}T00:00:00.000Z`;
const measured = (date: string, energy: number, price: number, savings: number, cumulative: number) => ({
  date: midnight(date),
  energyProducedKwh: energy,
  pricePerKwh: price,
  savings,
  cumulativeSavings: cumulative,
  isPrediction: false,
});

/**
 * 10 kWh on 8 June and 12 kWh on 9 June, from the increments of dailyEnergyProduced: 4 from zero
 * and 6 more; on the 9th, 5 is below the 8th's last reading (the counter restarted at midnight),
 * and 7 more.
 */
const TWO_DAYS = [
  { timestamp: '2026-06-08T08:00:00Z', dailyEnergyProduced: 4, solarPower: 900 },
  { timestamp: '2026-06-08T12:00:00Z', dailyEnergyProduced: 10, totalEnergyProduced: 5000 },
  { timestamp: '2026-06-09T09:00:00Z', dailyEnergyProduced: 5 },
  { timestamp: '2026-06-09T15:00:00Z', dailyEnergyProduced: 12 },
];

describe('prices and return on investment', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let owner: { cookie: string };
  let stranger: { cookie: string };
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config, clock));
    owner = await signUp(http, env.mail);
    stranger = await signUp(http, env.mail);
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  const createSource = (body: object = {}, cookie = owner.cookie): Promise<Source> =>
    createWebhookSource(http, cookie, { name: 'Roof', ...body });

  async function send(source: Source, points: object[]): Promise<void> {
    for (const point of points) {
      const response = await http
        .post(`/api/webhook/sunsource/${source.id}`)
        .send({ key: source.secret, ...point });
      expect(response.body).toEqual({ message: 'Data accepted', stored: true });
    }
  }

  const listPrices = (sourceId: string, cookie = owner.cookie) =>
    http.get(`/api/roi/${sourceId}/prices`).set('Cookie', cookie);
  const addPrice = (sourceId: string, body: object, cookie = owner.cookie) =>
    http.post(`/api/roi/${sourceId}/prices`).set('Cookie', cookie).send(body);
  const putPrice = (priceId: string, body: object, cookie = owner.cookie) =>
    http.put(`/api/roi/prices/${priceId}`).set('Cookie', cookie).send(body);
  const deletePrice = (priceId: string, cookie = owner.cookie) =>
    http.delete(`/api/roi/prices/${priceId}`).set('Cookie', cookie);
  const calculate = (sourceId: string, cookie = owner.cookie) =>
    http.get(`/api/roi/${sourceId}/calculate`).set('Cookie', cookie);
  const updateSource = (sourceId: string, body: object) =>
    http.put(`/api/sunsources/${sourceId}`).set('Cookie', owner.cookie).send(body).expect(200);

  describe('price history', () => {
    it('creates, lists by effectiveFrom (then by entry), updates and deletes prices', async () => {
      const source = await createSource();
      const march = await addPrice(source.id, {
        pricePerKwh: 0.25,
        effectiveFrom: '2026-03-01T00:00:00Z',
      }).expect(200);
      expect(march.body).toEqual({
        id: expect.any(String),
        sunSourceId: source.id,
        pricePerKwh: 0.25,
        effectiveFrom: '2026-03-01T00:00:00.000Z',
        createdAt: expect.stringMatching(ISO),
      });
      const january = (
        await addPrice(source.id, { pricePerKwh: 0.2, effectiveFrom: '2026-01-01' }).expect(200)
      ).body;
      const marchAgain = (
        await addPrice(source.id, { pricePerKwh: 0.3, effectiveFrom: '2026-03-01T01:00:00+01:00' }).expect(
          200,
        )
      ).body;
      expect(january.effectiveFrom).toBe('2026-01-01T00:00:00.000Z');
      expect(marchAgain.effectiveFrom).toBe('2026-03-01T00:00:00.000Z');

      expect((await listPrices(source.id).expect(200)).body).toEqual([january, march.body, marchAgain]);

      const moved = await putPrice(january.id, {
        pricePerKwh: 0.22,
        effectiveFrom: '2026-04-01T00:00:00+02:00',
      }).expect(200);
      expect(moved.body).toEqual({
        ...january,
        pricePerKwh: 0.22,
        effectiveFrom: '2026-03-31T22:00:00.000Z',
      });
      expect((await listPrices(source.id).expect(200)).body).toEqual([march.body, marchAgain, moved.body]);

      await deletePrice(march.body.id).expect(204);
      expect((await deletePrice(march.body.id).expect(404)).body).toEqual(PRICE_NOT_FOUND);
      expect(
        (await putPrice(march.body.id, { pricePerKwh: 1, effectiveFrom: '2026-01-01' }).expect(404)).body,
      ).toEqual(PRICE_NOT_FOUND);
      expect((await listPrices(source.id).expect(200)).body).toEqual([marchAgain, moved.body]);
    });

    it('lists the initialKwhPrice of a new source, effective at its creation', async () => {
      const source = await createSource({ initialKwhPrice: 0.31 });
      expect((await listPrices(source.id).expect(200)).body).toEqual([
        expect.objectContaining({
          sunSourceId: source.id,
          pricePerKwh: 0.31,
          effectiveFrom: NOW.toISOString(),
        }),
      ]);
      const empty = await createSource();
      expect((await listPrices(empty.id).expect(200)).body).toEqual([]);
    });

    it.each([0.000001, 0.5, 999_999.999999])('accepts the price %p', async (pricePerKwh) => {
      const source = await createSource();
      const created = await addPrice(source.id, { pricePerKwh, effectiveFrom: '2026-01-01' }).expect(200);
      expect(created.body.pricePerKwh).toBe(pricePerKwh);
      const updated = await putPrice(created.body.id, { pricePerKwh, effectiveFrom: '2026-02-01' }).expect(
        200,
      );
      expect(updated.body.pricePerKwh).toBe(pricePerKwh);
    });

    describe('refuses an invalid body with 400 { errors }', () => {
      let source: Source;
      let priceId: string;

      beforeAll(async () => {
        source = await createSource();
        priceId = (await addPrice(source.id, { pricePerKwh: 0.1, effectiveFrom: '2026-01-01' }).expect(200))
          .body.id;
      });

      it.each<[string, object, string]>([
        ['a price of 0', { pricePerKwh: 0 }, 'pricePerKwh'],
        ['a negative price', { pricePerKwh: -0.5 }, 'pricePerKwh'],
        ['7 decimals', { pricePerKwh: 1e-7 }, 'pricePerKwh'],
        ['a price that rounds to 0 at 6 decimals', { pricePerKwh: 1e-13 }, 'pricePerKwh'],
        ['the smallest positive number', { pricePerKwh: 5e-324 }, 'pricePerKwh'],
        ['more than the column holds', { pricePerKwh: 1_000_000 }, 'pricePerKwh'],
        ['a numeric string', { pricePerKwh: '0.5' }, 'pricePerKwh'],
        ['a null price', { pricePerKwh: null }, 'pricePerKwh'],
        ['no price', { pricePerKwh: undefined }, 'pricePerKwh'],
        ['no effectiveFrom', { effectiveFrom: undefined }, 'effectiveFrom'],
        ['a date that is not ISO 8601', { effectiveFrom: 'yesterday' }, 'effectiveFrom'],
        ['an impossible date', { effectiveFrom: '2026-02-30' }, 'effectiveFrom'],
        ['an unknown property', { currency: 'EUR' }, 'currency'],
      ])('%s', async (_case, change, field) => {
        const body = { pricePerKwh: 0.2, effectiveFrom: '2026-05-01T00:00:00Z', ...change };
        for (const response of [await addPrice(source.id, body), await putPrice(priceId, body)]) {
          expect(response.status).toBe(400);
          expect(Object.keys(response.body.errors)).toEqual([field]);
        }
        expect((await listPrices(source.id).expect(200)).body).toEqual([
          expect.objectContaining({ id: priceId, pricePerKwh: 0.1, effectiveFrom: midnight('2026-01-01') }),
        ]);
      });
    });

    it("answers 404 for another user's source or price, and leaves them alone", async () => {
      const source = await createSource();
      const price = (await addPrice(source.id, { pricePerKwh: 0.2, effectiveFrom: '2026-01-01' }).expect(200))
        .body;
      const body = { pricePerKwh: 9, effectiveFrom: '2026-01-01' };

      expect((await listPrices(source.id, stranger.cookie).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await addPrice(source.id, body, stranger.cookie).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await calculate(source.id, stranger.cookie).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await putPrice(price.id, body, stranger.cookie).expect(404)).body).toEqual(PRICE_NOT_FOUND);
      expect((await deletePrice(price.id, stranger.cookie).expect(404)).body).toEqual(PRICE_NOT_FOUND);
      expect((await listPrices(source.id).expect(200)).body).toEqual([price]);
    });

    it('answers 404 for unknown ids and 400 for ids that are not UUIDs', async () => {
      const unknown = randomUUID();
      const body = { pricePerKwh: 1, effectiveFrom: '2026-01-01' };
      expect((await listPrices(unknown).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await addPrice(unknown, body).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await calculate(unknown).expect(404)).body).toEqual(SOURCE_NOT_FOUND);
      expect((await putPrice(unknown, body).expect(404)).body).toEqual(PRICE_NOT_FOUND);
      expect((await deletePrice(unknown).expect(404)).body).toEqual(PRICE_NOT_FOUND);
      for (const response of [
        await listPrices('not-a-uuid'),
        await addPrice('not-a-uuid', body),
        await calculate('not-a-uuid'),
        await putPrice('not-a-uuid', body),
        await deletePrice('not-a-uuid'),
      ]) {
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ message: expect.stringMatching(/uuid/i) });
      }
    });

    it('needs a session', async () => {
      await http.get(`/api/roi/${randomUUID()}/prices`).expect(401);
      await http.get(`/api/roi/${randomUUID()}/calculate`).expect(401);
      await http.delete(`/api/roi/prices/${randomUUID()}`).expect(401);
    });
  });

  describe('calculate (figures worked out by hand in the comments)', () => {
    let twoDays: Source;

    beforeAll(async () => {
      twoDays = await createSource({ currency: 'usd' });
      await addPrice(twoDays.id, { pricePerKwh: 0.25, effectiveFrom: '2026-01-01' }).expect(200);
      await send(twoDays, TWO_DAYS);
    });

    it('(a) two days at one price', async () => {
      await updateSource(twoDays.id, { systemCost: 1000, maintenanceCostPerYear: null });
      expect((await calculate(twoDays.id).expect(200)).body).toEqual({
        totalEnergyProducedKwh: 22, // 10 + 12
        totalSavings: 5.5, // 10 × 0.25 + 12 × 0.25
        currency: 'USD',
        firstDataDate: midnight('2026-06-08'),
        lastDataDate: midnight('2026-06-09'),
        dailyBreakdown: [
          measured('2026-06-08', 10, 0.25, 2.5, 2.5),
          measured('2026-06-09', 12, 0.25, 3, 5.5),
        ],
        systemCost: 1000,
        roiPercentage: -99.45, // (5.5 − 1000) / 1000 × 100
        // 2 days = 2 / 30.4375 months: 5.5 / (2 / 30.4375) = 83.703125 a month, × 12 = 1004.4375 a
        // year; 1000 / 1004.4375 = 0.9956 years
        paybackPeriodYears: 1,
        monthlyAvgSavings: 83.7,
        hasInvestmentData: true,
      });
    });

    it('(g) maintenance lowers the ROI and lengthens the payback', async () => {
      await updateSource(twoDays.id, { systemCost: 1000, maintenanceCostPerYear: 100 });
      expect((await calculate(twoDays.id).expect(200)).body).toMatchObject({
        totalSavings: 5.5,
        // 2 days = 2 / 365.25 years of maintenance: (5.5 − 100 × 2 / 365.25 − 1000) / 1000 × 100 = −99.5048
        roiPercentage: -99.5,
        paybackPeriodYears: 1.11, // 1000 / (1004.4375 − 100) = 1.1057
        monthlyAvgSavings: 83.7,
        hasInvestmentData: true,
      });
    });

    it('(e) without a system cost: no investment data, ROI and payback 0', async () => {
      await updateSource(twoDays.id, { systemCost: null, maintenanceCostPerYear: 100 });
      expect((await calculate(twoDays.id).expect(200)).body).toMatchObject({
        totalEnergyProducedKwh: 22,
        totalSavings: 5.5,
        systemCost: 0,
        roiPercentage: 0,
        paybackPeriodYears: 0,
        monthlyAvgSavings: 83.7,
        hasInvestmentData: false,
      });
    });

    it('(b) a price change in the middle of the range prices its whole day', async () => {
      const source = await createSource();
      await addPrice(source.id, { pricePerKwh: 0.2, effectiveFrom: '2026-01-01' }).expect(200);
      await addPrice(source.id, { pricePerKwh: 0.3, effectiveFrom: '2026-06-08T15:00:00Z' }).expect(200);
      // Each day's counter read just after midnight too: it restarts, so each day counts its 10.
      await send(source, [
        { timestamp: '2026-06-07T10:00:00Z', dailyEnergyProduced: 10 },
        { timestamp: '2026-06-08T00:05:00Z', dailyEnergyProduced: 0 },
        { timestamp: '2026-06-08T10:00:00Z', dailyEnergyProduced: 10 },
        { timestamp: '2026-06-09T00:05:00Z', dailyEnergyProduced: 0 },
        { timestamp: '2026-06-09T10:00:00Z', dailyEnergyProduced: 10 },
      ]);
      const { body } = await calculate(source.id).expect(200);
      expect(body.dailyBreakdown).toEqual([
        measured('2026-06-07', 10, 0.2, 2, 2),
        measured('2026-06-08', 10, 0.3, 3, 5), // the new price took effect that afternoon
        measured('2026-06-09', 10, 0.3, 3, 8),
      ]);
      expect(body).toMatchObject({
        totalEnergyProducedKwh: 30,
        totalSavings: 8,
        monthlyAvgSavings: 81.17, // 8 / (3 / 30.4375) = 81.1667
        hasInvestmentData: false,
      });
    });

    it('(c) without prices the energy saves nothing', async () => {
      const source = await createSource({ systemCost: 1000 });
      await send(source, TWO_DAYS);
      expect((await calculate(source.id).expect(200)).body).toEqual({
        totalEnergyProducedKwh: 22,
        totalSavings: 0,
        currency: 'EUR',
        firstDataDate: midnight('2026-06-08'),
        lastDataDate: midnight('2026-06-09'),
        dailyBreakdown: [measured('2026-06-08', 10, 0, 0, 0), measured('2026-06-09', 12, 0, 0, 0)],
        systemCost: 1000,
        roiPercentage: -100, // (0 − 1000) / 1000 × 100
        paybackPeriodYears: 0, // nothing saved a year: cannot be computed
        monthlyAvgSavings: 0,
        hasInvestmentData: true,
      });
    });

    it('(d) without energy data: zeros, no dates, an empty breakdown', async () => {
      const source = await createSource({ initialKwhPrice: 0.25 });
      // No energy counter, and a single power reading: no interval of power to integrate.
      await send(source, [{ timestamp: '2026-06-09T10:00:00Z', solarPower: 1500 }]);
      expect((await calculate(source.id).expect(200)).body).toEqual({
        totalEnergyProducedKwh: 0,
        totalSavings: 0,
        currency: 'EUR',
        firstDataDate: null,
        lastDataDate: null,
        dailyBreakdown: [],
        systemCost: 0,
        roiPercentage: 0,
        paybackPeriodYears: 0,
        monthlyAvgSavings: 0,
        hasInvestmentData: false,
      });
    });

    it('(f) falls back on the rise of totalEnergyProduced', async () => {
      const source = await createSource({ systemCost: 360 });
      await addPrice(source.id, { pricePerKwh: 0.2, effectiveFrom: '2026-01-01' }).expect(200);
      await send(source, [
        { timestamp: '2026-06-05T08:00:00Z', totalEnergyProduced: 50 },
        { timestamp: '2026-06-05T16:00:00Z', totalEnergyProduced: 53 },
        { timestamp: '2026-06-08T06:00:00Z', totalEnergyProduced: 100 },
        { timestamp: '2026-06-08T18:00:00Z', totalEnergyProduced: 106 },
        { timestamp: '2026-06-09T06:00:00Z', totalEnergyProduced: 107 },
        { timestamp: '2026-06-09T18:00:00Z', totalEnergyProduced: 111 },
        { timestamp: '2026-06-10T08:00:00Z', totalEnergyProduced: 115 },
      ]);
      expect((await calculate(source.id).expect(200)).body).toEqual({
        totalEnergyProducedKwh: 18,
        totalSavings: 3.6,
        currency: 'EUR',
        firstDataDate: midnight('2026-06-05'),
        lastDataDate: midnight('2026-06-10'),
        dailyBreakdown: [
          measured('2026-06-05', 3, 0.2, 0.6, 0.6), // 53 − 50: no reading the day before
          measured('2026-06-08', 6, 0.2, 1.2, 1.8), // 106 − 100: none on 7 June (53 is not used)
          measured('2026-06-09', 5, 0.2, 1, 2.8), // 111 − 106, the previous day's last reading
          measured('2026-06-10', 4, 0.2, 0.8, 3.6), // 115 − 111
        ],
        systemCost: 360,
        roiPercentage: -99, // (3.6 − 360) / 360 × 100
        // 5 to 10 June = 6 days: 3.6 / (6 / 30.4375) = 18.2625 a month, 219.15 a year;
        // 360 / 219.15 = 1.6427
        paybackPeriodYears: 1.64,
        monthlyAvgSavings: 18.26,
        hasInvestmentData: true,
      });
    });

    it('(g) a day with neither counter takes its solar power over time, as the daily summary does', async () => {
      const source = await createSource();
      await addPrice(source.id, { pricePerKwh: 0.5, effectiveFrom: '2026-01-01' }).expect(200);
      await send(source, [
        { timestamp: '2026-06-08T10:00:00Z', dailyEnergyProduced: 2, solarPower: 3000 },
        { timestamp: '2026-06-09T10:00:00Z', solarPower: 2000 },
        { timestamp: '2026-06-09T10:10:00Z', solarPower: 4000 }, // 3 kW for 10 minutes
        { timestamp: '2026-06-09T11:00:00Z', solarPower: 4000 }, // 50 minutes later: a gap
      ]);
      const { body } = await calculate(source.id).expect(200);
      expect(body.dailyBreakdown).toEqual([
        measured('2026-06-08', 2, 0.5, 1, 1),
        measured('2026-06-09', 0.5, 0.5, 0.25, 1.25),
      ]);
      const summary = await http
        .get(`/api/sunsourcemetrics/${source.id}/daily-summary?startTime=2026-06-08T00:00:00Z`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(
        summary.body.map((day: Record<string, unknown>) => [
          day.date,
          day.energyProduced,
          day.energyProducedMethod,
        ]),
      ).toEqual([
        ['2026-06-08', 2, 'counter'],
        ['2026-06-09', 0.5, 'power'],
      ]);
    });
  });
});
