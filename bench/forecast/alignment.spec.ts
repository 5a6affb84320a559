import { chooseCestShift, choosePvdaqClock } from './alignment';
import { parseOpsd } from './opsd';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const LONGITUDE = 9.18;
const R4 = 'DE_KN_residential4';
/** Solar noon in UTC hours, the equation of time left out (a few minutes against the hour looked for). */
const NOON = 12 - LONGITUDE / 15;

const WINTER = { from: Date.parse('2015-12-20T00:00:00Z'), days: 20, halfWidth: 4, peak: 0.8 };
const SUMMER = { from: Date.parse('2016-06-20T00:00:00Z'), days: 20, halfWidth: 8, peak: 2 };

/** PV energy of the true UTC hour starting at `at`, kWh: a bell centred on solar noon. */
function pvEnergy(at: number, { halfWidth, peak }: { halfWidth: number; peak: number }): number {
  const middle = (at % DAY_MS) / HOUR_MS + 0.5;
  return peak * Math.max(0, 1 - ((middle - NOON) / halfWidth) ** 2);
}

interface Site {
  /** Whether the summer's `utc_timestamp` labels run an hour late (true UTC + 1 h), as in the 2017 release. */
  summerLabelsLate: boolean;
  /** Whether the building has a PV meter, and in which seasons it reads anything. */
  pv?: 'both' | 'summer' | 'none';
}

/**
 * An OPSD file of hourly cumulative meters for 20 days around each solstice: `cet_cest_timestamp`
 * ends `+0100` in winter and `+0200` in summer, `utc_timestamp` is true UTC or, in summer, an hour late.
 */
function household({ summerLabelsLate, pv = 'both' }: Site): string {
  const meters = [`${R4}_grid_import`, `${R4}_grid_export`, ...(pv === 'none' ? [] : [`${R4}_pv`])];
  const lines = [['utc_timestamp', 'cet_cest_timestamp', ...meters].join(',')];
  let imported = 1000;
  let produced = 500;
  for (const season of [WINTER, SUMMER]) {
    const summer = season === SUMMER;
    const late = summer && summerLabelsLate ? HOUR_MS : 0;
    for (let at = season.from; at <= season.from + season.days * DAY_MS; at += HOUR_MS) {
      const label = at + late;
      const local = `${new Date(label + (summer ? 2 : 1) * HOUR_MS).toISOString().slice(0, 19)}${summer ? '+0200' : '+0100'}`;
      const cells = [`${new Date(label).toISOString().slice(0, 19)}Z`, local, imported.toFixed(6), '0'];
      if (pv !== 'none') cells.push(produced.toFixed(6));
      lines.push(cells.join(','));
      imported += 0.3;
      if (pv === 'both' || (pv === 'summer' && summer)) produced += pvEnergy(at, season);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The PV centre's offsets from solar noon in an evidence line, minutes: [May–Aug, Nov–Feb]. */
function centres(line: string): [number, number] {
  const match = /May–Aug (-?\d+) min, Nov–Feb (-?\d+) min$/.exec(line);
  if (!match) throw new Error(`no PV centres in "${line}"`);
  return [Number(match[1]), Number(match[2])];
}

describe('chooseCestShift', () => {
  const trueUtc = parseOpsd(household({ summerLabelsLate: false }), R4);
  const lateInSummer = parseOpsd(household({ summerLabelsLate: true }), R4);

  it('keeps the stamps of a file whose utc_timestamp is UTC all year', () => {
    const choice = chooseCestShift(trueUtc, LONGITUDE, null);
    expect(choice.shift).toBe(false);
    expect(choice.lines).toHaveLength(3);
    const [summer, winter] = centres(choice.lines[0]);
    expect(Math.abs(summer - winter)).toBeLessThan(10);
    const [summerMoved, winterMoved] = centres(choice.lines[1]);
    expect(Math.abs(summerMoved - winterMoved - -60)).toBeLessThan(10);
    expect(choice.lines[2]).toBe(
      'utc_timestamp taken as UTC: summer and winter agree without a shift (--cest-shift on to move CEST rows)',
    );
  });

  it('moves the CEST rows of a file whose summer stamps run an hour late', () => {
    const choice = chooseCestShift(lateInSummer, LONGITUDE, null);
    expect(choice.shift).toBe(true);
    expect(choice.lines[0]).toMatch(/^PV centre − solar noon without the CEST shift: /);
    const [summer, winter] = centres(choice.lines[0]);
    expect(Math.abs(summer - winter - 60)).toBeLessThan(10);
    expect(choice.lines[1]).toMatch(/^PV centre − solar noon with the CEST shift: /);
    const [summerMoved, winterMoved] = centres(choice.lines[1]);
    expect(Math.abs(summerMoved - winterMoved)).toBeLessThan(10);
    expect(choice.lines[2]).toBe(
      'CEST rows moved an hour earlier: only then do summer and winter agree (--cest-shift off to keep them)',
    );
  });

  it('returns the choice forced, after the evidence, naming the option', () => {
    const on = chooseCestShift(trueUtc, LONGITUDE, true);
    expect(on.shift).toBe(true);
    expect(on.lines).toHaveLength(3);
    expect(on.lines[2]).toBe('CEST rows moved an hour earlier (--cest-shift on)');
    const off = chooseCestShift(lateInSummer, LONGITUDE, false);
    expect(off.shift).toBe(false);
    expect(off.lines[2]).toBe('CEST rows taken as they are (--cest-shift off)');
  });

  it('takes the stamps as UTC for a building without PV, saying there is none', () => {
    const file = parseOpsd(household({ summerLabelsLate: true, pv: 'none' }), R4);
    const choice = chooseCestShift(file, LONGITUDE, null);
    expect(choice).toEqual({
      shift: false,
      lines: [
        'utc_timestamp taken as UTC: no PV in both summer and winter to check it against (--cest-shift on to move CEST rows)',
      ],
    });
    expect(chooseCestShift(file, LONGITUDE, true)).toEqual({
      shift: true,
      lines: ['CEST rows moved an hour earlier (--cest-shift on)'],
    });
  });

  it('takes the stamps as UTC when the PV produced in one season only', () => {
    const file = parseOpsd(household({ summerLabelsLate: true, pv: 'summer' }), R4);
    const choice = chooseCestShift(file, LONGITUDE, null);
    expect(choice.shift).toBe(false);
    expect(choice.lines[0]).toMatch(/May–Aug \d+ min, Nov–Feb —$/);
    expect(choice.lines[2]).toMatch(/^utc_timestamp taken as UTC: no PV in both summer and winter/);
  });
});

describe('choosePvdaqClock', () => {
  const GOLDEN = -105.18;
  /** Hourly PV of 20 days around each solstice, a bell on solar noon, its hours moved by `summerShift` h in summer. */
  function pv(summerShift: number, seasons = [WINTER, SUMMER]): Map<number, number> {
    const noon = 12 - GOLDEN / 15;
    const series = new Map<number, number>();
    for (const season of seasons)
      for (let at = season.from; at < season.from + season.days * DAY_MS; at += HOUR_MS) {
        // Hours from solar noon, across UTC midnight too (noon is near 19:00Z here).
        const fromNoon = (((((at % DAY_MS) / HOUR_MS + 0.5 - noon) % 24) + 36) % 24) - 12;
        const power = 1000 * Math.max(0, 1 - (fromNoon / season.halfWidth) ** 2);
        series.set(at + (season === SUMMER ? summerShift : 0) * HOUR_MS, power);
      }
    return series;
  }

  it('reads wall time in the zone when the offsets put summer an hour late (system 50)', () => {
    const choice = choosePvdaqClock({ local: pv(0), offset: pv(1) }, 'America/Denver', GOLDEN);
    expect(choice.clock).toBe('local');
    expect(choice.lines[2]).toBe(
      'stamps read as wall time in America/Denver: then summer and winter agree (--pvdaq-clock offset keeps their offsets)',
    );
  });

  it('keeps the offsets when they are right and the wall-time reading puts summer an hour early', () => {
    const choice = choosePvdaqClock({ local: pv(-1), offset: pv(0) }, 'America/Denver', GOLDEN);
    expect(choice.clock).toBe('offset');
    expect(choice.lines[0]).toMatch(
      /^PV centre − solar noon at the stamps' offsets: May–Aug -?\d+ min, Nov–Feb/,
    );
    expect(choice.lines[2]).toMatch(/^stamps read at their offsets: then summer and winter agree/);
  });

  it('reads wall time without PV in both seasons, saying why', () => {
    const choice = choosePvdaqClock(
      { local: pv(0, [SUMMER]), offset: pv(1, [SUMMER]) },
      'America/Denver',
      GOLDEN,
    );
    expect(choice.clock).toBe('local');
    expect(choice.lines[2]).toMatch(/no PV in both summer and winter to check the clock against/);
  });
});
