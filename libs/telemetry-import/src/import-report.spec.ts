import { ImportTally, MAX_LISTED_REJECTIONS } from './import-report';

describe('ImportTally', () => {
  it('counts every rejection and lists the 100 of the lowest lines, in line order', () => {
    const tally = new ImportTally();
    for (let line = 300; line >= 2; line--) tally.reject(line, `line ${line}`);
    tally.reject(1_000, 'late');
    tally.reject(50, 'again');
    const report = tally.snapshot();
    expect(report.rejected).toBe(301);
    expect(report.rejections).toHaveLength(MAX_LISTED_REJECTIONS);
    expect(report.rejections.slice(0, 3)).toEqual([
      { line: 2, reason: 'line 2' },
      { line: 3, reason: 'line 3' },
      { line: 4, reason: 'line 4' },
    ]);
    expect(report.rejections.filter((rejection) => rejection.line === 50)).toHaveLength(2);
    expect(report.rejections[MAX_LISTED_REJECTIONS - 1]).toEqual({ line: 100, reason: 'line 100' });
  });

  it('hands out snapshots the counting does not change', () => {
    const tally = new ImportTally();
    tally.read();
    tally.count('stored');
    const before = tally.snapshot();
    tally.read();
    tally.count('throttled');
    tally.reject(3, 'bad');
    expect(before).toEqual({
      rowsRead: 1,
      stored: 1,
      duplicate: 0,
      throttled: 0,
      rejected: 0,
      rejections: [],
    });
  });
});
