import { DailyEnergyReadings, dailyEnergy } from './daily-energy';

const day = (date: string) => new Date(`${date}T00:00:00.000Z`);
const readings = (
  date: string,
  maxDailyEnergyKwh: number | null,
  minTotalEnergyKwh: number | null = null,
  maxTotalEnergyKwh: number | null = minTotalEnergyKwh,
): DailyEnergyReadings => ({ day: day(date), maxDailyEnergyKwh, minTotalEnergyKwh, maxTotalEnergyKwh });

describe('dailyEnergy', () => {
  it('takes the largest dailyEnergyProduced of a day, even when totals are there too', () => {
    expect(dailyEnergy([readings('2026-06-08', 12.5, 100, 130)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 12.5 },
    ]);
  });

  it('keeps a day whose daily counter says 0', () => {
    expect(dailyEnergy([readings('2026-06-08', 0)])).toEqual([{ day: day('2026-06-08'), energyKwh: 0 }]);
  });

  it('falls back on the rise of totalEnergyProduced within the day when the day before has no total', () => {
    // 106 − 100
    expect(dailyEnergy([readings('2026-06-08', null, 100, 106)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 6 },
    ]);
  });

  it("counts the total's rise since the previous calendar day's last reading", () => {
    expect(
      dailyEnergy([
        readings('2026-06-08', null, 100, 106),
        readings('2026-06-09', null, 107, 111), // 111 − 106, not 111 − 107
        readings('2026-06-10', null, 115), // one reading: 115 − 111
      ]),
    ).toEqual([
      { day: day('2026-06-08'), energyKwh: 6 },
      { day: day('2026-06-09'), energyKwh: 5 },
      { day: day('2026-06-10'), energyKwh: 4 },
    ]);
  });

  it('does not carry energy across a gap of days', () => {
    expect(dailyEnergy([readings('2026-06-05', null, 50, 53), readings('2026-06-07', null, 60, 62)])).toEqual(
      [
        { day: day('2026-06-05'), energyKwh: 3 },
        { day: day('2026-06-07'), energyKwh: 2 }, // 62 − 60, not 62 − 53
      ],
    );
  });

  it('uses the rise within the day after a counter reset', () => {
    expect(
      dailyEnergy([readings('2026-06-08', null, 490, 500), readings('2026-06-09', null, 3, 10)]),
    ).toEqual([
      { day: day('2026-06-08'), energyKwh: 10 },
      { day: day('2026-06-09'), energyKwh: 7 },
    ]);
  });

  it('uses the rise within the day when the day before had only the daily counter', () => {
    expect(dailyEnergy([readings('2026-06-08', 9), readings('2026-06-09', null, 200, 208)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 9 },
      { day: day('2026-06-09'), energyKwh: 8 },
    ]);
  });

  it('leaves out days with neither counter and sorts the days', () => {
    expect(
      dailyEnergy([readings('2026-06-09', 4), readings('2026-06-07', null), readings('2026-06-08', 3)]),
    ).toEqual([
      { day: day('2026-06-08'), energyKwh: 3 },
      { day: day('2026-06-09'), energyKwh: 4 },
    ]);
  });

  it('answers nothing for no telemetry', () => {
    expect(dailyEnergy([])).toEqual([]);
  });
});
