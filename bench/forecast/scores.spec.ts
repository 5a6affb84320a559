import type { ScoredHour } from './replay';
import {
  loadRows,
  loadTable,
  signed,
  solarRows,
  solarTable,
  threeDecimals,
  typicalWeek,
  weatherPersistence,
} from './scores';

const HOUR_MS = 3_600_000;
const START = Date.parse('2025-06-01T00:00:00Z');

/** `days` days of hours, daytime 06–18 UTC, with the given solar values (NaN: missing). */
function scoredHours(
  days: number,
  values: (index: number) => Partial<ScoredHour> = () => ({}),
): ScoredHour[] {
  return Array.from({ length: days * 24 }, (_, index) => {
    const hour = START + index * HOUR_MS;
    const date = new Date(hour).toISOString().slice(0, 10);
    const daylight = index % 24 >= 6 && index % 24 < 18;
    return {
      hour,
      date,
      month: date.slice(0, 7),
      daylight,
      solar: daylight ? 1000 : 0,
      load: 500,
      modelSolar: { weather: NaN, history: daylight ? 1100 : 0 },
      modelLoad: { weather: NaN, history: 450 },
      baselineSolar: { weather: NaN, history: daylight ? 1200 : 0 },
      baselineLoad: { weather: NaN, history: 400 },
      fittedPhysics: NaN,
      smartPersistence: daylight ? 800 : 0,
      clearSky: daylight ? 1000 : 0,
      sameAsYesterday: 600,
      ...values(index),
    };
  });
}

describe('solarRows and loadRows', () => {
  it('score only hours with every value, normalised by the capacity', () => {
    const hours = scoredHours(40, (index) => (index < 24 * 3 ? { solar: NaN } : {}));
    const rows = solarRows(hours, 'history', 5000);
    expect(rows.map((row) => row.label)).toEqual(['2025-06', '2025-07', 'overall']);
    const overall = rows[rows.length - 1];
    expect(overall.hours).toBe(37 * 12);
    expect(overall.model).toMatchObject({ mae: 100, rmse: 100, nmae: 0.02, nrmse: 0.02 });
    expect(overall.smartPersistence.nrmse).toBeCloseTo(0.04, 12);
  });

  it('give no rows, not NaN, when nothing can be scored', () => {
    const hours = scoredHours(10, () => ({ smartPersistence: NaN, sameAsYesterday: NaN }));
    expect(solarRows(hours, 'history', 5000)).toEqual([]);
    expect(solarRows(hours, 'weather', 5000)).toEqual([]);
    expect(loadRows(hours, 'history')).toEqual([]);
  });

  it('print a dash for a skill against a perfect reference, never NaN', () => {
    const hours = scoredHours(10, (index) => ({
      smartPersistence: index % 24 >= 6 && index % 24 < 18 ? 1000 : 0,
    }));
    const table = solarTable(solarRows(hours, 'history', 5000));
    expect(table).toContain('—');
    expect(table).not.toMatch(/NaN|Infinity/);
    expect(loadTable(loadRows(hours, 'history'))).not.toMatch(/NaN|Infinity/);
  });
});

describe('signed and threeDecimals', () => {
  it('print a skill that rounds to zero from below as 0.000, not −0.000', () => {
    expect(threeDecimals(-0.0004)).toBe('0.000');
    expect(signed(-0.0004)).toBe(' 0.000');
    expect(signed(-0.0006)).toBe('-0.001');
    expect(signed(0.2031)).toBe(' 0.203');
    expect(signed(null)).toBe('—');
  });
});

describe('typicalWeek', () => {
  it('picks the week whose error is the median of all weeks', () => {
    // The error grows day by day: the median of the 7-day windows starts at the middle window.
    const hours = scoredHours(15, (index) => ({
      modelSolar: { weather: NaN, history: 1000 + 10 * Math.floor(index / 24) },
    }));
    const scorable = hours.filter((hour) => hour.daylight);
    const week = typicalWeek(
      hours,
      scorable,
      (hour) => hour.daylight,
      (hour) => hour.modelSolar.history,
      (hour) => hour.solar,
    );
    expect(week).toBe('2025-06-05');
  });

  it('is null when no week has half its hours scorable', () => {
    const hours = scoredHours(15);
    expect(
      typicalWeek(
        hours,
        hours.slice(0, 10),
        (hour) => hour.daylight,
        () => 1,
        () => 1,
      ),
    ).toBeNull();
  });
});

describe('weatherPersistence', () => {
  /** `days` days whose daily clear-sky index is `index(day)`: solar = index × the clear sky. */
  const daysOfIndex = (days: number, index: (day: number) => number) =>
    scoredHours(days, (hour) => {
      const daylight = hour % 24 >= 6 && hour % 24 < 18;
      return { solar: daylight ? 1000 * index(Math.floor(hour / 24)) : 0 };
    });

  it('finds r = −1 for alternating days, which a linear forecast beats entirely', () => {
    const figures = weatherPersistence(daysOfIndex(20, (day) => (day % 2 === 0 ? 0.2 : 0.8)));
    expect(figures?.pairs).toBe(19);
    expect(figures?.meanIndex).toBeCloseTo((9 * 0.2 + 10 * 0.8) / 19, 12);
    expect(figures?.correlation).toBeCloseTo(-1, 12);
    expect(figures?.linearSkillOverPersistence).toBeCloseTo(1, 6);
  });

  it('finds r = 0 where a day says nothing of the next: 1 − √½ to gain', () => {
    // a a b b a a b b ...: the pairs (a,a), (a,b), (b,b), (b,a) in turn, 24 of them.
    const figures = weatherPersistence(daysOfIndex(25, (day) => (Math.floor(day / 2) % 2 === 0 ? 0.3 : 0.9)));
    expect(figures?.pairs).toBe(24);
    expect(figures?.correlation).toBeCloseTo(0, 12);
    expect(figures?.linearSkillOverPersistence).toBeCloseTo(1 - Math.sqrt(0.5), 12);
  });

  it('pairs only consecutive days with an index each, and needs 10 pairs', () => {
    // Day 5 unmeasured and day 9 absent: each takes 2 of the pairs of consecutive days.
    const withHoles = (days: number) =>
      daysOfIndex(days, (day) => 0.2 + 0.05 * day)
        .map((hour) => (hour.date === '2025-06-06' ? { ...hour, solar: NaN } : hour))
        .filter((hour) => hour.date !== '2025-06-10');
    expect(weatherPersistence(withHoles(14))).toBeNull();
    expect(weatherPersistence(withHoles(15))).toMatchObject({
      pairs: 10,
      correlation: expect.closeTo(1, 12),
    });
  });
});
