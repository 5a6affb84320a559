import { dailyEnergy, TotalEnergyReadings } from './daily-energy';
import { MeasuredDayProduction } from './measured-production';

const day = (date: string) => new Date(`${date}T00:00:00.000Z`);
const totals = (
  date: string,
  minTotalEnergyKwh: number,
  maxTotalEnergyKwh = minTotalEnergyKwh,
): TotalEnergyReadings => ({
  day: day(date),
  minTotalEnergyKwh,
  maxTotalEnergyKwh,
});
const counted = (date: string, energyKwh: number): MeasuredDayProduction => ({
  day: day(date),
  energyKwh,
  method: 'counter',
});
const integrated = (date: string, energyKwh: number): MeasuredDayProduction => ({
  day: day(date),
  energyKwh,
  method: 'power',
});

describe('dailyEnergy', () => {
  it("takes the daily counter's energy of a day, even when totals are there too", () => {
    expect(dailyEnergy([counted('2026-06-08', 12.5)], [totals('2026-06-08', 100, 130)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 12.5 },
    ]);
  });

  it('keeps a day whose daily counter says 0', () => {
    expect(dailyEnergy([counted('2026-06-08', 0)], [])).toEqual([{ day: day('2026-06-08'), energyKwh: 0 }]);
  });

  it('falls back on the rise of totalEnergyProduced within the day when the day before has no total', () => {
    // 106 − 100
    expect(dailyEnergy([], [totals('2026-06-08', 100, 106)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 6 },
    ]);
  });

  it("counts the total's rise since the previous calendar day's last reading", () => {
    expect(
      dailyEnergy(
        [],
        [
          totals('2026-06-08', 100, 106),
          totals('2026-06-09', 107, 111), // 111 − 106, not 111 − 107
          totals('2026-06-10', 115), // one reading: 115 − 111
        ],
      ),
    ).toEqual([
      { day: day('2026-06-08'), energyKwh: 6 },
      { day: day('2026-06-09'), energyKwh: 5 },
      { day: day('2026-06-10'), energyKwh: 4 },
    ]);
  });

  it('does not carry energy across a gap of days', () => {
    expect(dailyEnergy([], [totals('2026-06-05', 50, 53), totals('2026-06-07', 60, 62)])).toEqual([
      { day: day('2026-06-05'), energyKwh: 3 },
      { day: day('2026-06-07'), energyKwh: 2 }, // 62 − 60, not 62 − 53
    ]);
  });

  it('uses the rise within the day after a counter reset', () => {
    expect(dailyEnergy([], [totals('2026-06-08', 490, 500), totals('2026-06-09', 3, 10)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 10 },
      { day: day('2026-06-09'), energyKwh: 7 },
    ]);
  });

  it('uses the rise within the day when the day before had only the daily counter', () => {
    expect(dailyEnergy([counted('2026-06-08', 9)], [totals('2026-06-09', 200, 208)])).toEqual([
      { day: day('2026-06-08'), energyKwh: 9 },
      { day: day('2026-06-09'), energyKwh: 8 },
    ]);
  });

  it('takes the energy integrated from solar power only on a day without either counter', () => {
    expect(
      dailyEnergy(
        [integrated('2026-06-08', 7.5), integrated('2026-06-09', 6)],
        [totals('2026-06-09', 200, 208)],
      ),
    ).toEqual([
      { day: day('2026-06-08'), energyKwh: 7.5 },
      { day: day('2026-06-09'), energyKwh: 8 }, // the total counter, not the integral
    ]);
  });

  it('leaves out days without energy and sorts the days', () => {
    expect(dailyEnergy([counted('2026-06-09', 4), counted('2026-06-08', 3)], [])).toEqual([
      { day: day('2026-06-08'), energyKwh: 3 },
      { day: day('2026-06-09'), energyKwh: 4 },
    ]);
  });

  it('answers nothing for no telemetry', () => {
    expect(dailyEnergy([], [])).toEqual([]);
  });
});
