import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions } from './options';
import { readSite } from './site-input';
import { dataErrorMessage } from './spec-support';

const HOUR_MS = 3_600_000;
const START = Date.parse('2025-05-01T00:00:00Z');

describe('readSite: an OPSD building', () => {
  it('reports a meter that reset among what it did to the data', () => {
    const directory = mkdtempSync(join(tmpdir(), 'bench-site-opsd-'));
    try {
      const prefix = 'DE_KN_residential4';
      const lines = [
        `utc_timestamp,cet_cest_timestamp,${prefix}_grid_import,${prefix}_grid_export,${prefix}_pv`,
      ];
      const meters = { import: 0, export: 0, pv: 0 };
      for (let at = START; at < START + 40 * 24 * HOUR_MS; at += HOUR_MS) {
        const pvKwh = Math.max(0, 3 * Math.sin((Math.PI * (new Date(at).getUTCHours() - 5)) / 14));
        meters.import += 0.5;
        meters.export += pvKwh / 2;
        meters.pv += pvKwh;
        // The export meter replaced after 20 days: it counts from 0 again.
        if (at === START + 20 * 24 * HOUR_MS) meters.export = 0;
        const local = `${new Date(at + 2 * HOUR_MS).toISOString().slice(0, 19)}+0200`;
        lines.push(
          `${new Date(at).toISOString().slice(0, 19)}Z,${local},${meters.import},${meters.export},${meters.pv}`,
        );
      }
      const path = join(directory, 'opsd.csv');
      writeFileSync(path, `${lines.join('\n')}\n`);
      const parsed = parseOptions([
        ...['--opsd', path, '--capacity', '4kW', '--lat', '47.66', '--lon', '9.18', '--cest-shift', 'off'],
      ]);
      if (parsed.help) throw new Error('expected options, got --help');
      expect(readSite(parsed.options).notes).toContain(
        `${prefix}_grid_export reset 1 time (its reading fell): the interval across it left out`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('readSite: a plain CSV', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'bench-site-input-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** 40 days of hourly rows, PV `pv(hour of day)` W, then `after` lines; read as a 4 kW site. */
  const read = (name: string, pv: (hourOfDay: number) => number, after: string[] = []) => {
    const lines = ['timestamp,pv_power_w'];
    for (let at = START; at < START + 40 * 24 * HOUR_MS; at += HOUR_MS)
      lines.push(`${new Date(at).toISOString()},${pv(new Date(at).getUTCHours())}`);
    const path = join(directory, name);
    writeFileSync(path, `${[...lines, ...after].join('\n')}\n`);
    const parsed = parseOptions(['--csv', path, '--capacity', '4kW', '--lat', '48.14', '--lon', '11.58']);
    if (parsed.help) throw new Error('expected options, got --help');
    return () => readSite(parsed.options);
  };
  /** About 3 kW at noon, none at night. */
  const daylight = (hour: number) => Math.max(0, 3000 * Math.sin((Math.PI * (hour - 5)) / 14));

  it('says PV that is 0 in every hour has nothing to score', () => {
    expect(dataErrorMessage(read('zero.csv', () => 0))).toBe(
      'PV is 0 in every hour (values below 0 read as 0): nothing to score, or the wrong column is read as PV',
    );
  });

  it('still asks for the unit of PV that peaks above 0 but under 2 % of the capacity', () => {
    expect(dataErrorMessage(read('kilowatts.csv', (hour) => daylight(hour) / 1000))).toMatch(
      /^PV peaks at 3\.0 W, under 2 % of the 4 kW capacity: is the column in kW or kWh/,
    );
  });

  it('asks for the unit of PV that reaches 1.5 times the capacity, the capacity’s or the column’s', () => {
    expect(dataErrorMessage(read('watts-as-kilowatts.csv', (hour) => 1000 * daylight(hour)))).toBe(
      'PV reaches 3000000 W in an hour, 1.5 times the 4 kW capacity: is --capacity in the wrong unit ' +
        '(3.5kW, 3500W), or the column in W under a name read as kW or kWh (pv_kw)?',
    );
  });

  it('counts the empty rows it skipped among what it did to the data, and only when there are some', () => {
    const notesOf = (name: string, after: string[]) => read(name, daylight, after)().notes.join('\n');
    expect(notesOf('empty-rows.csv', [',', ',', ','])).toMatch(
      /values below 0 set to 0: 0 PV, 0 load, 0 GHI; 3 empty rows skipped$/m,
    );
    expect(notesOf('empty-row.csv', [','])).toMatch(/; 1 empty row skipped$/m);
    expect(notesOf('no-empty-rows.csv', [])).not.toMatch(/empty row/);
  });
});
