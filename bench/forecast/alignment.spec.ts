import { chooseCestShift, choosePvdaqClock, clockChanges } from './alignment';
import type { HourlySeries } from './data-files';
import { HouseholdFile, householdSeries, parseOpsd } from './opsd';
import { zoneOffsetMs } from './time-zones';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const BERLIN = 'Europe/Berlin';
const KONSTANZ = 9.18;
const GOLDEN = -105.18;
const R4 = 'DE_KN_residential4';

/**
 * PV energy of the true UTC hour starting at `at`, kWh: a bell on solar noon (the equation of
 * time left out), centred earlier the longer the day, as an array facing south-east is: 6 min
 * before noon at the winter solstice, 42 min at the summer one. Its centre moves with the season
 * as a clock change would move it between summer and winter, but smoothly.
 */
function pvEnergy(at: number, longitude: number): number {
  const dayOfYear = (at - Date.UTC(new Date(at).getUTCFullYear(), 0, 1)) / DAY_MS;
  const summerness = (1 + Math.sin((2 * Math.PI * (dayOfYear - 80)) / 365)) / 2;
  const centre = 12 - longitude / 15 - 0.1 - 0.6 * summerness;
  const fromCentre = (((((at % DAY_MS) / HOUR_MS + 0.5 - centre) % 24) + 36) % 24) - 12;
  return Math.max(0, 1 - (fromCentre / 6) ** 2);
}

/** Weeks around the clock changes of 2016 in Berlin (27 March, 30 October), true UTC hours. */
const AROUND_BERLIN_CHANGES: [string, string][] = [
  ['2016-03-06', '2016-04-17'],
  ['2016-10-09', '2016-11-20'],
];
const isSummerTime = (at: number, zone: string) =>
  zoneOffsetMs(at, zone) !== zoneOffsetMs(Date.UTC(2016, 0, 1), zone);

/**
 * An OPSD file of hourly cumulative meters over `periods`: `cet_cest_timestamp` ends `+0200` in
 * summer time and `+0100` else; `utc_timestamp` is true UTC or, in summer time, an hour late (the
 * 2017 release's fault).
 */
function household(summerLabelsLate: boolean, { pv = true, periods = AROUND_BERLIN_CHANGES } = {}): string {
  const meters = [`${R4}_grid_import`, `${R4}_grid_export`, ...(pv ? [`${R4}_pv`] : [])];
  const lines = [['utc_timestamp', 'cet_cest_timestamp', ...meters].join(',')];
  let imported = 1000;
  let produced = 500;
  for (const [from, to] of periods)
    for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += HOUR_MS) {
      const summer = isSummerTime(at, BERLIN);
      const label = at + (summer && summerLabelsLate ? HOUR_MS : 0);
      const local = `${new Date(label + (summer ? 2 : 1) * HOUR_MS).toISOString().slice(0, 19)}${summer ? '+0200' : '+0100'}`;
      const cells = [`${new Date(label).toISOString().slice(0, 19)}Z`, local, imported.toFixed(6), '0'];
      if (pv) cells.push(produced.toFixed(6));
      lines.push(cells.join(','));
      imported += 0.3;
      produced += pvEnergy(at, KONSTANZ);
    }
  return `${lines.join('\n')}\n`;
}

/** The jumps, in minutes, of an evidence line ("... : −58 min on 2016-03-27, +2 min on ..."). */
function jumps(line: string): number[] {
  return [...line.matchAll(/([+−])(\d+) min on \d{4}-\d{2}-\d{2}/g)].map(
    ([, sign, minutes]) => (sign === '−' ? -1 : 1) * Number(minutes),
  );
}

describe('clockChanges', () => {
  it('finds the hours at which a zone starts and ends summer time', () => {
    expect(
      clockChanges(BERLIN, Date.UTC(2016, 0, 1), Date.UTC(2017, 0, 1)).map((at) =>
        new Date(at).toISOString(),
      ),
    ).toEqual(['2016-03-27T01:00:00.000Z', '2016-10-30T01:00:00.000Z']);
    expect(
      clockChanges('America/Denver', Date.UTC(2012, 0, 1), Date.UTC(2013, 0, 1)).map((at) =>
        new Date(at).toISOString(),
      ),
    ).toEqual(['2012-03-11T09:00:00.000Z', '2012-11-04T08:00:00.000Z']);
    expect(clockChanges('UTC+05:30', Date.UTC(2012, 0, 1), Date.UTC(2013, 0, 1))).toEqual([]);
  });
});

/** The choice on a file's PV read without and with the CEST shift, as the bench reads it. */
const chooseShift = (file: HouseholdFile, longitude: number, zone: string, forced: boolean | null) =>
  chooseCestShift(
    { without: householdSeries(file, false).pv, with: householdSeries(file, true).pv },
    longitude,
    zone,
    forced,
  );

describe('chooseCestShift', () => {
  const trueUtc = parseOpsd(household(false), R4);
  const lateInSummer = parseOpsd(household(true), R4);

  it('keeps the stamps of a file whose utc_timestamp is UTC all year', () => {
    const choice = chooseShift(trueUtc, KONSTANZ, BERLIN, null);
    expect(choice.shift).toBe(false);
    expect(choice.lines[0]).toMatch(/^PV centre's jump across the clock changes without the CEST shift: /);
    for (const jump of jumps(choice.lines[0])) expect(Math.abs(jump)).toBeLessThan(10);
    expect(jumps(choice.lines[1]).map((jump) => Math.abs(jump) > 45)).toEqual([true, true]);
    expect(choice.lines[2]).toBe(
      'utc_timestamp taken as UTC: then the PV does not jump at the clock changes (--cest-shift on moves CEST rows)',
    );
  });

  it('moves the CEST rows of a file whose summer stamps run an hour late', () => {
    const choice = chooseShift(lateInSummer, KONSTANZ, BERLIN, null);
    expect(choice.shift).toBe(true);
    const [spring, autumn] = jumps(choice.lines[0]);
    expect(Math.abs(spring - 60)).toBeLessThan(15);
    expect(Math.abs(autumn + 60)).toBeLessThan(15);
    for (const jump of jumps(choice.lines[1])) expect(Math.abs(jump)).toBeLessThan(10);
    expect(choice.lines[2]).toBe(
      'CEST rows moved an hour earlier: then the PV does not jump at the clock changes (--cest-shift off keeps them)',
    );
  });

  it('returns the choice forced, after the evidence, naming the option', () => {
    const on = chooseShift(trueUtc, KONSTANZ, BERLIN, true);
    expect(on.shift).toBe(true);
    expect(on.lines).toHaveLength(3);
    expect(on.lines[2]).toBe('CEST rows moved an hour earlier (--cest-shift on)');
    const off = chooseShift(lateInSummer, KONSTANZ, BERLIN, false);
    expect(off.shift).toBe(false);
    expect(off.lines[2]).toBe('CEST rows taken as they are (--cest-shift off)');
  });

  it('moves the CEST rows, as the 2017 release needs, when there is no PV to tell', () => {
    const withoutPv = chooseShift(parseOpsd(household(false, { pv: false }), R4), KONSTANZ, BERLIN, null);
    expect(withoutPv).toEqual({
      shift: true,
      lines: [
        'CEST rows moved an hour earlier, as the 2017 release needs: no PV on both sides of a clock change to check the stamps against (--cest-shift off keeps them)',
      ],
    });
    const summerOnly = parseOpsd(household(false, { periods: [['2016-06-01', '2016-07-31']] }), R4);
    const choice = chooseShift(summerOnly, KONSTANZ, BERLIN, null);
    expect(choice.shift).toBe(true);
    expect(choice.lines[0]).toMatch(/: none with PV on both sides$/);
  });
});

describe('choosePvdaqClock', () => {
  const DENVER = 'America/Denver';
  /** Hourly PV (W) around the 2012 clock changes in Denver, every hour moved by `summerShift` h in summer time. */
  function pv(
    summerShift: number,
    periods: [string, string][] = [
      ['2012-02-19', '2012-04-01'],
      ['2012-10-14', '2012-11-25'],
    ],
  ): HourlySeries {
    const series: HourlySeries = new Map();
    for (const [from, to] of periods)
      for (let at = Date.parse(`${from}T00:00:00Z`); at < Date.parse(`${to}T00:00:00Z`); at += HOUR_MS)
        series.set(at + (isSummerTime(at, DENVER) ? summerShift : 0) * HOUR_MS, 3000 * pvEnergy(at, GOLDEN));
    return series;
  }

  it('reads wall time in the zone when at their offsets the PV jumps at the clock changes (system 50)', () => {
    const choice = choosePvdaqClock({ local: pv(0), offset: pv(1) }, DENVER, GOLDEN);
    expect(choice.clock).toBe('local');
    expect(choice.lines[0]).toMatch(
      /^PV centre's jump across the clock changes at the stamps' offsets: \+\d+ min on 2012-03-11/,
    );
    expect(choice.lines[2]).toBe(
      'stamps read as wall time in America/Denver: then the PV does not jump at the clock changes (--pvdaq-clock offset keeps their offsets)',
    );
  });

  it('keeps the offsets when they are right and wall time would make the PV jump', () => {
    const choice = choosePvdaqClock({ local: pv(-1), offset: pv(0) }, DENVER, GOLDEN);
    expect(choice.clock).toBe('offset');
    for (const jump of jumps(choice.lines[0])) expect(Math.abs(jump)).toBeLessThan(10);
    expect(choice.lines[2]).toMatch(
      /^stamps read at their offsets: then the PV does not jump at the clock changes/,
    );
  });

  it('reads wall time when no clock change has PV on both sides, saying why', () => {
    const summer: [string, string][] = [['2012-06-01', '2012-07-31']];
    const choice = choosePvdaqClock({ local: pv(0, summer), offset: pv(1, summer) }, DENVER, GOLDEN);
    expect(choice.clock).toBe('local');
    expect(choice.lines[2]).toMatch(/no PV on both sides of a clock change to check them against/);
  });
});
