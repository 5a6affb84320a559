import {
  combinedMethod,
  counterIncrement,
  DailyEnergyTally,
  DayEnergy,
  POWER_GAP_MS,
  powerIncrement,
} from './energy-increments';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAY1 = Date.parse('2026-06-08T00:00:00Z');
const DAY_NUMBER = DAY1 / DAY;
const at = (day: number, hours: number) => DAY1 + day * DAY + hours * HOUR;

/** The days of a tally fed with counter readings [time, kWh] only. */
function counterDays(readings: Array<[number, number]>, before?: [number, number]): DayEnergy[] {
  const tally = new DailyEnergyTally({ counter: before ? { at: before[0], value: before[1] } : null });
  for (const [time, value] of readings) tally.add(time, value, Number.NaN);
  return tally.days();
}

/** The days of a tally fed with power readings [time, W] only. */
function powerDays(readings: Array<[number, number]>): DayEnergy[] {
  const tally = new DailyEnergyTally();
  for (const [time, value] of readings) tally.add(time, Number.NaN, value);
  return tally.days();
}

describe('counterIncrement', () => {
  it.each([
    ['no earlier reading: counts whole', undefined, 3, 3],
    ['the same day, higher: the rise', [at(0, 8), 2], 3.5, 1.5],
    ['the same day, equal: nothing', [at(0, 8), 2], 2, 0],
    ['the same day, lower: a restart, counts whole', [at(0, 8), 9], 0.4, 0.4],
    ['the day before, lower: restarted at midnight, counts whole', [at(-1, 23.9), 20], 0.1, 0.1],
    ['the day before, not lower: kept counting across midnight, nothing', [at(-1, 23.9), 350], 350.2, 0],
    ['two days before: too old to compare, counts whole', [at(-2, 23.9), 350], 351, 351],
  ] as const)('%s', (_case, previous, value, expected) => {
    const earlier = previous ? { at: previous[0], value: previous[1] } : undefined;
    expect(counterIncrement(earlier, { at: at(0, 9), value })).toBe(expected);
  });
});

describe('powerIncrement', () => {
  it('is the trapezoid between two readings, in kWh', () => {
    // 1 kW rising to 3 kW over 6 minutes: 2 kW × 0.1 h.
    expect(powerIncrement({ at: at(0, 12), value: 1000 }, { at: at(0, 12.1), value: 3000 })).toBeCloseTo(
      0.2,
      12,
    );
  });

  it('bridges a gap of 15 minutes, not one longer', () => {
    const previous = { at: at(0, 12), value: 1200 };
    expect(powerIncrement(previous, { at: previous.at + POWER_GAP_MS, value: 1200 })).toBeCloseTo(0.3, 12);
    expect(powerIncrement(previous, { at: previous.at + POWER_GAP_MS + 1, value: 1200 })).toBeNull();
  });

  it('knows nothing without an earlier reading or across midnight', () => {
    expect(powerIncrement(undefined, { at: at(0, 12), value: 500 })).toBeNull();
    expect(powerIncrement({ at: at(0, -0.05), value: 500 }, { at: at(0, 0.05), value: 500 })).toBeNull();
  });
});

describe('DailyEnergyTally', () => {
  it('a device rebooting at noon: the morning counts, and the afternoon from the new value', () => {
    const days = counterDays([
      [at(0, 6), 0.2],
      [at(0, 11.9), 10],
      [at(0, 12), 0.1], // restarted
      [at(0, 18), 6],
    ]);
    expect(days).toEqual([{ day: DAY_NUMBER, kwh: expect.closeTo(16, 12), method: 'counter' }]);
  });

  it('a lifetime counter: only the rises within each day, once a day before shows it never restarts', () => {
    const days = counterDays([
      [at(0, 12), 350],
      [at(0, 23.5), 358],
      [at(1, 0.5), 358], // no drop at midnight
      [at(1, 14), 370.5],
    ]);
    expect(days).toEqual([
      // Its first day has nothing to compare with: read as a daily counter from zero.
      { day: DAY_NUMBER, kwh: 358, method: 'counter' },
      { day: DAY_NUMBER + 1, kwh: 12.5, method: 'counter' },
    ]);
    // Starting from a reading before the range, the first day is right too.
    expect(counterDays([[at(0, 12), 350]], [at(-1, 23), 349])).toEqual([
      { day: DAY_NUMBER, kwh: 0, method: 'counter' },
    ]);
  });

  it('a daily counter restarting at local midnight (22:00 UTC) gives each UTC day its own energy', () => {
    const days = counterDays([
      [at(0, 21.5), 30],
      [at(0, 22), 0], // local midnight
      [at(0, 23.9), 0.8],
      [at(1, 0.1), 0.9], // UTC midnight: no drop
      [at(1, 21.9), 25],
    ]);
    // The rise across UTC midnight (0.1) belongs to neither day.
    expect(days.map((day) => day.kwh)).toEqual([30.8, expect.closeTo(24.1, 12)]);
  });

  it('a day without a counter reading: its power over time, the counter on other days', () => {
    const tally = new DailyEnergyTally();
    tally.add(at(0, 10), 2, 999); // counter day: power ignored
    tally.add(at(0, 11), 5, 999);
    tally.add(at(1, 10), Number.NaN, 1000);
    tally.add(at(1, 10.25), Number.NaN, 3000);
    expect(tally.days()).toEqual([
      { day: DAY_NUMBER, kwh: 5, method: 'counter' },
      { day: DAY_NUMBER + 1, kwh: expect.closeTo(0.5, 12), method: 'power' },
    ]);
  });

  it('does not bridge gaps longer than 15 minutes, nor midnight', () => {
    const days = powerDays([
      [at(0, 10), 2000],
      [at(0, 10.1), 2000], // 6 minutes: 0.2 kWh
      [at(0, 11), 2000], // 54 minutes: a gap
      [at(0, 11.25), 2000], // 15 minutes: 0.5 kWh
      [at(0, 23.95), 400],
      [at(1, 0.05), 400], // across midnight: not counted
      [at(1, 3), 400], // a gap again: day 2 has no interval
    ]);
    expect(days).toEqual([
      { day: DAY_NUMBER, kwh: expect.closeTo(0.7, 12), method: 'power' },
      { day: DAY_NUMBER + 1, kwh: null, method: null },
    ]);
  });

  it('starts from the readings before the range', () => {
    const tally = new DailyEnergyTally({
      counter: { at: at(0, 9), value: 4 },
      power: { at: at(0, 9.9), value: 1000 },
    });
    tally.add(at(0, 10), 5, 1000);
    expect(tally.days()).toEqual([{ day: DAY_NUMBER, kwh: 1, method: 'counter' }]);
    const power = new DailyEnergyTally({ power: { at: at(0, 9.9), value: 1000 } });
    power.add(at(0, 10), Number.NaN, 1000);
    expect(power.days()).toEqual([{ day: DAY_NUMBER, kwh: expect.closeTo(0.1, 12), method: 'power' }]);
  });

  it('refuses readings out of time order', () => {
    const tally = new DailyEnergyTally();
    tally.add(at(0, 10), 1, Number.NaN);
    expect(() => tally.add(at(0, 9), 2, Number.NaN)).toThrow('time order');
  });
});

describe('combinedMethod', () => {
  it.each([
    [[], null],
    [[null, null], null],
    [['counter', null, 'counter'], 'counter'],
    [['power'], 'power'],
    [['counter', 'power'], 'mixed'],
    [['mixed', 'counter'], 'mixed'],
  ] as const)('%j → %s', (methods, expected) => {
    expect(combinedMethod(methods)).toBe(expected);
  });
});
