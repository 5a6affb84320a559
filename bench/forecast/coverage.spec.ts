import { checkCoverage } from './coverage';
import type { HourlySeries } from './data-files';
import { dataErrorMessage } from './spec-support';

const HOUR_MS = 3_600_000;
const RULE = 'an hour counts when its rows cover 75 % of it';

/** An hourly series of 1 W over each [first, end) range of hour starts. */
function hours(...ranges: [string, string][]): HourlySeries {
  const series: HourlySeries = new Map();
  for (const [first, end] of ranges)
    for (let at = Date.parse(first); at < Date.parse(end); at += HOUR_MS) series.set(at, 1);
  return series;
}

describe('checkCoverage', () => {
  it('gives the span as UTC times, from the start of the first hour to the end of the last', () => {
    // Ten local days from 2025-02-15 in Berlin: UTC dates alone would read 2025-02-14 to 2025-02-24.
    const tenDays = hours(['2025-02-14T23:00Z', '2025-02-24T23:00Z']);
    expect(dataErrorMessage(() => checkCoverage(tenDays, 'PV', RULE))).toMatch(
      /^too short: PV covers 10\.0 days \(2025-02-14 23:00 to 2025-02-24 23:00 UTC\); scoring needs at least 30/,
    );
  });

  it('says "1 gap" for one run of missing hours, "2 gaps" for two', () => {
    const oneGap = hours(
      ['2025-01-01T00:00Z', '2025-01-05T00:00Z'],
      ['2025-02-20T00:00Z', '2025-02-25T00:00Z'],
    );
    expect(dataErrorMessage(() => checkCoverage(oneGap, 'PV', RULE))).toMatch(
      /^too sparse: only 16 % of the hours from 2025-01-01 00:00 to 2025-02-25 00:00 UTC have PV \(1 gap, the longest 1104 h;/,
    );
    const twoGaps = hours(
      ['2025-01-01T00:00Z', '2025-01-05T00:00Z'],
      ['2025-01-20T00:00Z', '2025-01-21T00:00Z'],
      ['2025-02-20T00:00Z', '2025-02-25T00:00Z'],
    );
    expect(dataErrorMessage(() => checkCoverage(twoGaps, 'PV', RULE))).toMatch(/\(2 gaps, the longest/);
  });
});
