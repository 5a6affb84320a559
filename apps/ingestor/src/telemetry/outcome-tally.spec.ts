import { OutcomeTally } from './outcome-tally';

describe('OutcomeTally', () => {
  it('counts per interval and in total', () => {
    const tally = new OutcomeTally();
    tally.count('stored');
    tally.count('stored');
    tally.count('ignored');
    expect(tally.takeSummary()).toEqual({
      stored: 2,
      throttled: 0,
      duplicate: 0,
      overBudget: 0,
      rejected: 0,
      ignored: 1,
      lost: 0,
    });
    tally.count('throttled');
    expect(tally.takeSummary()).toEqual({
      stored: 0,
      throttled: 1,
      duplicate: 0,
      overBudget: 0,
      rejected: 0,
      ignored: 0,
      lost: 0,
    });
    expect(tally.totals()).toEqual({
      stored: 2,
      throttled: 1,
      duplicate: 0,
      overBudget: 0,
      rejected: 0,
      ignored: 1,
      lost: 0,
    });
  });

  it('has no summary for an idle interval', () => {
    const tally = new OutcomeTally();
    expect(tally.takeSummary()).toBeUndefined();
    tally.count('lost');
    tally.takeSummary();
    expect(tally.takeSummary()).toBeUndefined();
  });
});
