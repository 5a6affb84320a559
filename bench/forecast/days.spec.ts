import { DataError } from './data-error';
import type { HourlySeries } from './data-files';
import { chooseDays } from './days';

const HOUR_MS = 3_600_000;

/** Hours from `from` (an ISO instant) for `days` days, every one present. */
function hourly(from: string, days: number): HourlySeries {
  const start = Date.parse(from);
  return new Map(Array.from({ length: days * 24 }, (_, hour) => [start + hour * HOUR_MS, 100] as const));
}

const none = { train: null, score: null };

describe('chooseDays', () => {
  it('scores the last third of the whole local days and trains on every day before', () => {
    const series = hourly('2025-03-01T00:00:00+02:00', 90);
    expect(chooseDays([series], 'UTC+02:00', none)).toEqual({
      train: ['2025-03-01', '2025-04-29'],
      score: ['2025-04-30', '2025-05-29'],
    });
  });

  it('leaves out a first and a last day the data covers only in part', () => {
    // 06:00 Berlin on March 1st to 06:00 on May 30th.
    const series = hourly('2025-03-01T05:00:00Z', 90);
    const days = chooseDays([series], 'Europe/Berlin', none);
    expect(days.train[0]).toBe('2025-03-02');
    expect(days.score[1]).toBe('2025-05-29');
  });

  it('trains on the days before a given score range, and scores the days after a given training range', () => {
    const series = [hourly('2025-03-01T00:00:00Z', 90)];
    expect(chooseDays(series, 'UTC+00:00', { train: null, score: ['2025-05-01', '2025-05-10'] })).toEqual({
      train: ['2025-03-01', '2025-04-30'],
      score: ['2025-05-01', '2025-05-10'],
    });
    expect(chooseDays(series, 'UTC+00:00', { train: ['2025-03-01', '2025-03-31'], score: null })).toEqual({
      train: ['2025-03-01', '2025-03-31'],
      score: ['2025-04-01', '2025-05-29'],
    });
  });

  it('refuses too little to train on and days to score without data, saying so', () => {
    const series = [hourly('2025-03-01T00:00:00Z', 40)];
    const attempt = (given: Parameters<typeof chooseDays>[2]) => () => chooseDays(series, 'UTC+00:00', given);
    expect(attempt({ train: ['2025-03-01', '2025-03-10'], score: null })).toThrow(
      /the training days 2025-03-01 to 2025-03-10 hold 240 hours with data; training needs at least 336/,
    );
    expect(attempt({ train: null, score: ['2025-06-01', '2025-06-30'] })).toThrow(
      /the scored days 2025-06-01 to 2025-06-30 hold no hour with data/,
    );
    expect(attempt({ train: ['2025-03-01', '2025-04-09'], score: null })).toThrow(DataError);
  });
});
