import { RETRAINING_RULE, retrainingCutoffs, retrainingDue } from './retraining';

const NOW = new Date('2026-06-10T12:30:00Z');
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS);

describe('training again', () => {
  it('is due for a young model at 30 days, for any model at a year', () => {
    const young = RETRAINING_RULE.fullYearHours - 1;
    const full = RETRAINING_RULE.fullYearHours;
    expect(retrainingDue(daysAgo(29.99), young, NOW)).toBe(false);
    expect(retrainingDue(daysAgo(30), young, NOW)).toBe(true);
    expect(retrainingDue(daysAgo(30), full, NOW)).toBe(false);
    expect(retrainingDue(daysAgo(364.99), full, NOW)).toBe(false);
    expect(retrainingDue(daysAgo(365), full, NOW)).toBe(true);
    expect(retrainingDue(daysAgo(365), 0, NOW)).toBe(true);
  });

  it('gives the moments the scheduled job queries with', () => {
    expect(retrainingCutoffs(NOW)).toEqual({
      youngTrainedBefore: daysAgo(30),
      anyTrainedBefore: daysAgo(365),
      failedBefore: daysAgo(30),
    });
    expect(RETRAINING_RULE.fullYearHours).toBe(330 * 24);
  });
});
