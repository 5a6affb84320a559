import { seededRandom } from '@solar/testing';
import { DailyForecastPoint } from './latest-daily-forecast';
import { calculateRoi, dailyPricing, RoiInput, RoiPrice } from './roi-calculator';

const NOW = new Date('2026-06-10T12:00:00Z');
const day = (date: string) => new Date(`${date}T00:00:00.000Z`);
const iso = (date: string) => `${date}T00:00:00.000Z`;
const price = (pricePerKwh: number, effectiveFrom: string): RoiPrice => ({
  pricePerKwh,
  effectiveFrom: new Date(effectiveFrom),
});

/** Two days, 10 and 12 kWh, at 0.25 per kWh, a system of 1000. */
const TWO_DAYS: RoiInput = {
  currency: 'EUR',
  systemCost: 1000,
  maintenanceCostPerYear: null,
  days: [
    { day: day('2026-06-08'), energyKwh: 10 },
    { day: day('2026-06-09'), energyKwh: 12 },
  ],
  prices: [price(0.25, '2026-01-01T00:00:00Z')],
  forecast: [],
  now: NOW,
};

const measuredDay = (
  date: string,
  energy: number,
  pricePerKwh: number,
  savings: number,
  cumulative: number,
) => ({
  date: iso(date),
  energyProducedKwh: energy,
  pricePerKwh,
  savings,
  cumulativeSavings: cumulative,
  isPrediction: false,
});

describe('calculateRoi', () => {
  it('(a) two days at one price', () => {
    expect(calculateRoi(TWO_DAYS)).toEqual({
      totalEnergyProducedKwh: 22, // 10 + 12
      totalSavings: 5.5, // 10 × 0.25 + 12 × 0.25
      currency: 'EUR',
      firstDataDate: iso('2026-06-08'),
      lastDataDate: iso('2026-06-09'),
      dailyBreakdown: [
        measuredDay('2026-06-08', 10, 0.25, 2.5, 2.5),
        measuredDay('2026-06-09', 12, 0.25, 3, 5.5),
      ],
      systemCost: 1000,
      // (5.5 − 0 − 1000) / 1000 × 100
      roiPercentage: -99.45,
      // 2 days = 2 / 30.4375 months: 5.5 / (2 / 30.4375) = 83.703125 a month, 1004.4375 a year;
      // 1000 / 1004.4375 = 0.99558…
      paybackPeriodYears: 1,
      monthlyAvgSavings: 83.7,
      hasInvestmentData: true,
    });
  });

  it('(b) a price change in the middle of the range applies to its whole day', () => {
    const summary = calculateRoi({
      ...TWO_DAYS,
      days: [
        { day: day('2026-06-07'), energyKwh: 10 },
        { day: day('2026-06-08'), energyKwh: 10 },
        { day: day('2026-06-09'), energyKwh: 10 },
      ],
      prices: [price(0.2, '2026-01-01T00:00:00Z'), price(0.3, '2026-06-08T15:00:00Z')],
    });
    expect(summary.dailyBreakdown).toEqual([
      measuredDay('2026-06-07', 10, 0.2, 2, 2),
      measuredDay('2026-06-08', 10, 0.3, 3, 5),
      measuredDay('2026-06-09', 10, 0.3, 3, 8),
    ]);
    expect(summary.totalSavings).toBe(8);
    // 3 days: 8 / (3 / 30.4375) = 81.1666…
    expect(summary.monthlyAvgSavings).toBe(81.17);
  });

  it('(c) without prices the energy is counted and saves nothing', () => {
    const summary = calculateRoi({ ...TWO_DAYS, prices: [] });
    expect(summary).toMatchObject({
      totalEnergyProducedKwh: 22,
      totalSavings: 0,
      monthlyAvgSavings: 0,
      roiPercentage: -100, // (0 − 1000) / 1000 × 100
      paybackPeriodYears: 0, // nothing saved a year: cannot be computed
      hasInvestmentData: true,
    });
    expect(summary.dailyBreakdown).toEqual([
      measuredDay('2026-06-08', 10, 0, 0, 0),
      measuredDay('2026-06-09', 12, 0, 0, 0),
    ]);
  });

  it('(c) days before the first price save nothing', () => {
    const summary = calculateRoi({ ...TWO_DAYS, prices: [price(0.25, '2026-06-09T23:59:59Z')] });
    expect(summary.dailyBreakdown.map((entry) => entry.savings)).toEqual([0, 3]);
    expect(summary.totalSavings).toBe(3);
  });

  it('(d) without telemetry: zeros, no dates, no breakdown', () => {
    expect(calculateRoi({ ...TWO_DAYS, systemCost: null, days: [] })).toEqual({
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

  it('(d) without telemetry but with a system cost: nothing recovered yet', () => {
    expect(calculateRoi({ ...TWO_DAYS, maintenanceCostPerYear: 50, days: [] })).toMatchObject({
      systemCost: 1000,
      roiPercentage: -100, // no time covered, so no maintenance either
      paybackPeriodYears: 0,
      hasInvestmentData: true,
    });
  });

  it.each([null, 0])('(e) system cost %p: no investment data, ROI and payback 0', (systemCost) => {
    expect(calculateRoi({ ...TWO_DAYS, systemCost, maintenanceCostPerYear: 100 })).toMatchObject({
      totalSavings: 5.5,
      systemCost: 0,
      roiPercentage: 0,
      paybackPeriodYears: 0,
      monthlyAvgSavings: 83.7,
      hasInvestmentData: false,
    });
  });

  it('(g) maintenance lowers the ROI and lengthens the payback', () => {
    expect(calculateRoi({ ...TWO_DAYS, maintenanceCostPerYear: 100 })).toMatchObject({
      // 2 days = 2 / 365.25 years: (5.5 − 100 × 2 / 365.25 − 1000) / 1000 × 100 = −99.5047…
      roiPercentage: -99.5,
      // 1000 / (83.703125 × 12 − 100) = 1000 / 904.4375 = 1.1056…
      paybackPeriodYears: 1.11,
      monthlyAvgSavings: 83.7,
    });
  });

  it('(g) maintenance above the yearly savings: no payback', () => {
    expect(calculateRoi({ ...TWO_DAYS, maintenanceCostPerYear: 2000 })).toMatchObject({
      // (5.5 − 2000 × 2 / 365.25 − 1000) / 1000 × 100 = −100.5451…
      roiPercentage: -100.55,
      paybackPeriodYears: 0,
    });
  });

  it('covers the days from the first to the last, gaps included', () => {
    const summary = calculateRoi({
      ...TWO_DAYS,
      systemCost: 100,
      prices: [price(0.25, '2025-01-01T00:00:00Z')],
      days: [
        { day: day('2025-06-10'), energyKwh: 1000 },
        { day: day('2026-06-09'), energyKwh: 1000 },
      ],
    });
    // 365 days; 500 saved: 500 / (365 / 30.4375) = 41.6952… a month, 500.3424… a year
    expect(summary).toMatchObject({
      totalSavings: 500,
      monthlyAvgSavings: 41.7,
      roiPercentage: 400, // (500 − 100) / 100 × 100
      paybackPeriodYears: 0.2, // 100 / 500.3424…
    });
  });

  it('rounds the answer, not the sums', () => {
    const summary = calculateRoi({
      ...TWO_DAYS,
      days: ['2026-06-07', '2026-06-08', '2026-06-09'].map((date) => ({ day: day(date), energyKwh: 1 })),
      prices: [price(0.333333, '2026-01-01T00:00:00Z')],
    });
    expect(summary.dailyBreakdown.map((entry) => [entry.savings, entry.cumulativeSavings])).toEqual([
      [0.33, 0.33],
      [0.33, 0.67],
      [0.33, 1],
    ]);
    expect(summary.totalSavings).toBe(1); // 0.999999, not 0.33 × 3
  });

  it('rounds energy to 3 decimals and keeps the price', () => {
    const summary = calculateRoi({
      ...TWO_DAYS,
      days: [{ day: day('2026-06-09'), energyKwh: 1234.567 - 1230.1 }],
      prices: [price(0.123456, '2026-01-01T00:00:00Z')],
    });
    expect(summary.totalEnergyProducedKwh).toBe(4.467);
    expect(summary.dailyBreakdown[0]).toMatchObject({ energyProducedKwh: 4.467, pricePerKwh: 0.123456 });
    expect(summary.dailyBreakdown[0].savings).toBe(0.55); // 4.467 × 0.123456 = 0.5514…
  });

  it('sorts measured days given in any order', () => {
    const summary = calculateRoi({ ...TWO_DAYS, days: [...TWO_DAYS.days].reverse() });
    expect(summary.dailyBreakdown.map((entry) => entry.date)).toEqual([iso('2026-06-08'), iso('2026-06-09')]);
    expect(summary.firstDataDate).toBe(iso('2026-06-08'));
  });

  describe('forecast days', () => {
    const forecast: DailyForecastPoint[] = [
      { date: '2026-06-09', solarProductionKwh: 50 }, // measured already
      { date: '2026-06-10', solarProductionKwh: 50 }, // today
      { date: '2026-06-12', solarProductionKwh: 4 },
      { date: '2026-06-11', solarProductionKwh: 8 },
      { date: '2026-06-11', solarProductionKwh: 99 }, // second point of a day
      { date: '2026-06-13', solarProductionKwh: Number.NaN },
      { date: 'tomorrow', solarProductionKwh: 1 },
      { date: '2026-02-30', solarProductionKwh: 1 },
      { date: '2026-06-14', solarProductionKwh: -3 },
    ];

    it('follow the measured days after today, priced on their day, outside the totals', () => {
      const summary = calculateRoi({
        ...TWO_DAYS,
        prices: [...TWO_DAYS.prices, price(0.5, '2026-06-12T00:00:00Z')],
        forecast,
      });
      expect(summary.dailyBreakdown).toEqual([
        measuredDay('2026-06-08', 10, 0.25, 2.5, 2.5),
        measuredDay('2026-06-09', 12, 0.25, 3, 5.5),
        { ...measuredDay('2026-06-11', 8, 0.25, 2, 7.5), isPrediction: true },
        { ...measuredDay('2026-06-12', 4, 0.5, 2, 9.5), isPrediction: true },
        { ...measuredDay('2026-06-14', 0, 0.5, 0, 9.5), isPrediction: true },
      ]);
      expect(summary).toMatchObject({
        totalEnergyProducedKwh: 22,
        totalSavings: 5.5,
        lastDataDate: iso('2026-06-09'),
        monthlyAvgSavings: 83.7,
      });
    });

    it('are the whole breakdown of a source without telemetry', () => {
      const summary = calculateRoi({ ...TWO_DAYS, days: [], forecast });
      expect(summary.dailyBreakdown.map((entry) => [entry.date, entry.isPrediction])).toEqual([
        [iso('2026-06-11'), true],
        [iso('2026-06-12'), true],
        [iso('2026-06-14'), true],
      ]);
      expect(summary).toMatchObject({ totalSavings: 0, firstDataDate: null, lastDataDate: null });
    });
  });
});

describe('dailyPricing', () => {
  it('prices a day with the latest price in effect before the day ends', () => {
    const priceOn = dailyPricing([
      price(0.3, '2026-06-09T00:00:00Z'),
      price(0.2, '2026-01-01T00:00:00Z'),
      price(0.4, '2026-06-10T23:59:59.999Z'),
    ]);
    expect(priceOn(day('2025-12-31'))).toBe(0);
    expect(priceOn(day('2026-01-01'))).toBe(0.2);
    expect(priceOn(day('2026-06-08'))).toBe(0.2); // the next one starts at the following midnight
    expect(priceOn(day('2026-06-09'))).toBe(0.3);
    expect(priceOn(day('2026-06-10'))).toBe(0.4);
    expect(priceOn(day('2027-01-01'))).toBe(0.4);
  });

  it('takes the one entered last among prices effective at the same moment', () => {
    const priceOn = dailyPricing([price(0.2, '2026-06-01T00:00:00Z'), price(0.3, '2026-06-01T00:00:00Z')]);
    expect(priceOn(day('2026-06-01'))).toBe(0.3);
  });

  /** The rule read literally: of the prices in effect before the day ends, the latest, ties to the last entered. */
  const straightforward = (prices: readonly RoiPrice[], date: Date): number => {
    const end = date.getTime() + 86_400_000;
    let found: RoiPrice | undefined;
    for (const candidate of prices) {
      const start = candidate.effectiveFrom.getTime();
      if (start < end && (!found || start >= found.effectiveFrom.getTime())) found = candidate;
    }
    return found?.pricePerKwh ?? 0;
  };

  it.each([1, 2, 3])(
    'agrees with the straightforward lookup over 1,000 prices and 3,650 days (seed %i)',
    (seed) => {
      const random = seededRandom(seed);
      const first = Date.parse('2016-01-01T00:00:00Z');
      // Unsorted, many on the same moment, many on a midnight or just before one.
      const prices = Array.from({ length: 1000 }, (_, index) => {
        const dayIndex = Math.floor(random() * 3700) - 25;
        const within = [0, 86_399_999, 43_200_000, Math.floor(random() * 86_400_000)][index % 4];
        return { pricePerKwh: index + 1, effectiveFrom: new Date(first + dayIndex * 86_400_000 + within) };
      });
      const days = Array.from({ length: 3650 }, (_, index) => new Date(first + index * 86_400_000));
      const priceOn = dailyPricing(prices);
      const ours = days.map((date) => priceOn(date));
      expect(ours).toEqual(days.map((date) => straightforward(prices, date)));
      expect(new Set(ours).size).toBeGreaterThan(500);

      const summary = calculateRoi({
        ...TWO_DAYS,
        days: days.map((date, index) => ({ day: date, energyKwh: (index % 9) + 1 })),
        prices,
        now: new Date(first + 3650 * 86_400_000),
      });
      expect(summary.dailyBreakdown.map((each) => each.pricePerKwh)).toEqual(
        days.map((date) => straightforward(prices, date)),
      );
    },
  );
});
