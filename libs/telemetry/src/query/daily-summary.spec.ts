import { isoWeekStart, weeklySummaries } from './daily-summary';
import { DailyRow } from './telemetry-query.repository';

function day(date: string, overrides: Partial<DailyRow> = {}): DailyRow {
  return {
    day: new Date(`${date}T00:00:00Z`),
    sampleCount: 2,
    solarPowerAvg: 100,
    solarPowerCount: 2,
    solarPowerMax: 150,
    loadPowerAvg: 50,
    loadPowerCount: 2,
    loadPowerMax: 80,
    socAvg: 60,
    socCount: 2,
    socMin: 40,
    socMax: 80,
    voltageAvg: 50,
    voltageCount: 2,
    gridVoltageAvg: 230,
    gridVoltageCount: 2,
    gridFreqAvg: 50,
    gridFreqCount: 2,
    energyProduced: 10,
    energyConsumed: 5,
    energyProducedMethod: 'counter',
    energyConsumedMethod: 'power',
    ...overrides,
  };
}

describe('isoWeekStart', () => {
  it.each([
    ['2026-11-23', '2026-11-23'], // a Monday
    ['2026-11-29', '2026-11-23'], // the Sunday after
    ['2026-11-22', '2026-11-16'], // the Sunday before
    ['2027-01-01', '2026-12-28'], // a week across the new year
  ])('%s is in the week of %s', (date, monday) => {
    expect(isoWeekStart(new Date(`${date}T00:00:00Z`))).toBe(monday);
  });
});

describe('weeklySummaries', () => {
  it('weights averages by the samples behind them, sums energy, keeps extremes', () => {
    const weeks = weeklySummaries([
      day('2026-11-23', {
        solarPowerAvg: 100,
        solarPowerCount: 1,
        sampleCount: 1,
        socMin: 30,
        energyProduced: 4,
      }),
      day('2026-11-24', {
        solarPowerAvg: 400,
        solarPowerCount: 3,
        sampleCount: 3,
        socMax: 95,
        energyProduced: 6,
      }),
      day('2026-11-30', { energyProduced: 7 }),
    ]);
    expect(weeks).toHaveLength(2);
    expect(weeks[0]).toMatchObject({
      date: '2026-11-23',
      solarPowerAvg: (100 * 1 + 400 * 3) / 4,
      socMin: 30,
      socMax: 95,
      energyProduced: 10,
      energyConsumed: 10,
      sampleCount: 4,
    });
    expect(weeks[1]).toMatchObject({ date: '2026-11-30', energyProduced: 7, sampleCount: 2 });
  });

  it('weights each field by its own non-null count, and reports null where a week has no value', () => {
    const [week] = weeklySummaries([
      day('2026-11-23', {
        gridFreqAvg: null,
        gridFreqCount: 0,
        energyProduced: null,
        energyProducedMethod: null,
      }),
      day('2026-11-24', {
        gridFreqAvg: 49.9,
        gridFreqCount: 5,
        energyProduced: null,
        energyProducedMethod: null,
      }),
    ]);
    expect(week.gridFreqAvg).toBe(49.9);
    expect(week.energyProduced).toBeNull();
    expect(week.energyProducedMethod).toBeNull();
  });

  it("says how a week's energy was counted: as its days were, or mixed when they differ", () => {
    const [week, next] = weeklySummaries([
      day('2026-11-23', { energyProducedMethod: 'counter', energyConsumedMethod: 'power' }),
      day('2026-11-24', { energyProducedMethod: 'power', energyConsumedMethod: null, energyConsumed: null }),
      day('2026-11-30', { energyProducedMethod: 'power', energyConsumedMethod: 'power' }),
      day('2026-12-01', { energyProducedMethod: null, energyProduced: null, energyConsumedMethod: 'power' }),
    ]);
    expect(week).toMatchObject({ energyProducedMethod: 'mixed', energyConsumedMethod: 'power' });
    expect(next).toMatchObject({ energyProducedMethod: 'power', energyConsumedMethod: 'power' });
  });
});
