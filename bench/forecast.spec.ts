import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPowerAt, resolveSystem, solarPowerAt } from '../libs/synthetic/src/synthetic-device';
import { unicodeText } from './forecast/spec-support';

/** The command as a user runs it: exit codes, messages, and a whole run on a small plain CSV. */

const ROOT = join(__dirname, '..');
const HOUR_MS = 3_600_000;

type BenchRun = ReturnType<typeof bench>;

function bench(...args: string[]) {
  const run = spawnSync(
    process.execPath,
    ['--require', './bench/register.js', 'bench/forecast.ts', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The run's summary lines of the scores without weather, `  solar (b): ...` and `  load (b): ...`. */
const scoreLines = (stdout: string) =>
  stdout.split('\n').filter((line) => /^ {2}(solar|load) \(b\):/.test(line));

/** `run` succeeded and scored solar and load exactly as `reference` did. */
function expectSameScores(run: BenchRun, reference: BenchRun): void {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(scoreLines(reference.stdout)).toHaveLength(2);
  expect(scoreLines(run.stdout)).toEqual(scoreLines(reference.stdout));
}

/** The site of the synthetic device the specs' files come from (Munich, 4 kW), as options. */
const SITE = ['--capacity', '4kW', '--lat', '48.14', '--lon', '11.58'];

/**
 * Half-hourly PV and load of the synthetic device, stamped in UTC+02:00, written to `path`; the
 * data rows, for a spec that writes them again in another layout.
 */
function writeHalfHourlyCsv(path: string, days: number): string[] {
  const system = resolveSystem({ latitude: 48.14, longitude: 11.58, capacityWatts: 4000, seed: 7 });
  const start = Date.parse('2025-05-01T00:00:00+02:00');
  const lines = ['Timestamp,PV Power (W),Load (W)'];
  for (let at = start; at < start + days * 24 * HOUR_MS; at += HOUR_MS / 2) {
    const middle = at + HOUR_MS / 4;
    const local = new Date(at + 2 * HOUR_MS).toISOString().slice(0, 19);
    lines.push(
      `${local}+02:00,${solarPowerAt(system, middle).toFixed(1)},${loadPowerAt(system, middle).toFixed(1)}`,
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return lines.slice(1);
}

/**
 * The plain file's half-hourly rows as the cumulative kWh meters of an OPSD building read every 15
 * minutes (each reading at the end of its quarter, stamped in UTC): grid import and export from
 * the load net of the PV, with or without the export meter.
 */
function writeOpsdMeters(path: string, halfHourRows: string[], withExport: boolean): void {
  const meters = ['grid_import', ...(withExport ? ['grid_export'] : []), 'pv'];
  const lines = [
    ['utc_timestamp', 'cet_cest_timestamp', ...meters.map((meter) => `DE_KN_residential9_${meter}`)].join(
      ',',
    ),
  ];
  const totals: Record<string, number> = { grid_import: 0, grid_export: 0, pv: 0 };
  const reading = (at: number) =>
    [
      `${new Date(at).toISOString().slice(0, 19)}Z`,
      `${new Date(at + 2 * HOUR_MS).toISOString().slice(0, 19)}+0200`,
      ...meters.map((meter) => totals[meter].toFixed(9)),
    ].join(',');
  lines.push(reading(Date.parse(halfHourRows[0].split(',')[0])));
  for (const row of halfHourRows) {
    const [stamp, pv, load] = row
      .split(',')
      .map((cell, index) => (index === 0 ? Date.parse(cell) : Number(cell)));
    const net = load - pv;
    for (const quarter of [1, 2]) {
      totals.pv += pv / 4000;
      totals.grid_import += Math.max(0, net) / 4000;
      totals.grid_export += Math.max(0, -net) / 4000;
      lines.push(reading(stamp + (quarter * HOUR_MS) / 4));
    }
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('npm run bench:forecast', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'bench-forecast-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('--help lists the options and exits 0', () => {
    const run = bench('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--csv FILE');
    expect(run.stdout).toContain('--time-zone ZONE');
    expect(run.stdout).toContain('(default: ');
  });

  it('exits 2 on an unknown option, naming it', () => {
    const run = bench('--pv', 'x.csv');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('error: unknown option --pv');
    expect(run.stderr).toContain('--help');
  });

  it('exits 1 with a sentence, not a stack, when the file cannot be read', () => {
    const run = bench(
      '--csv',
      join(directory, 'missing.csv'),
      '--lat',
      '48',
      '--lon',
      '11',
      '--capacity',
      '4kW',
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error: cannot read .*missing\.csv: ENOENT/);
    expect(run.stderr).not.toContain('    at ');
  });

  it('exits 1 saying why when the data is too short to score', () => {
    const path = join(directory, 'short.csv');
    writeHalfHourlyCsv(path, 12);
    const run = bench('--csv', path, '--lat', '48.14', '--lon', '11.58', '--capacity', '4kW');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error: too short: PV covers 12\.0 days/);
  });

  it('exits 1 asking for the unit when PV under a W name peaks under 2 % of the capacity', () => {
    const watts = join(directory, 'unit-check-watts.csv');
    writeHalfHourlyCsv(watts, 40);
    const [header, ...rows] = readFileSync(watts, 'utf8').trimEnd().split('\n');
    const kilowatts = rows.map((row) => {
      const [stamp, pv, load] = row.split(',');
      return `${stamp},${(Number(pv) / 1000).toFixed(4)},${load}`;
    });
    const path = join(directory, 'unit-check-kilowatts.csv');
    writeFileSync(path, `${header}\n${kilowatts.join('\n')}\n`);
    const run = bench('--csv', path, '--capacity', '4kW', '--lat', '48.14', '--lon', '11.58');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /error: PV peaks at \d+\.\d W, under 2 % of the 4 kW capacity: is the column in kW or kWh \(then name its unit: pv_kw, pv_energy_kwh\)/,
    );
  });

  it('scores half-hourly data given only its path, capacity and coordinates, and writes SVG plots', () => {
    const path = join(directory, 'half-hourly.csv');
    writeHalfHourlyCsv(path, 40);
    const results = join(directory, 'results');
    const run = bench(
      '--csv',
      path,
      '--capacity',
      '4kW',
      '--lat',
      '48.14',
      '--lon',
      '11.58',
      '--results',
      results,
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('rows every 30 min');
    // The synthetic device's panels lie flat: no azimuth to tell.
    expect(run.stdout).toMatch(/orientation tilt 0° \(flat\) \(clear-sky, \d+ clear days\)/);
    expect(run.stdout).toMatch(/solar \(b\): nRMSE \d+\.\d %, nMAE \d+\.\d %/);
    expect(run.stdout).not.toMatch(/NaN|Infinity/);
    expect(run.stdout).toContain('smart persistence (SP) = yesterday’s daily clear-sky index');
    const { weatherPersistence } = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')).results;
    expect(weatherPersistence.linearSkillOverPersistence).toBeCloseTo(
      1 - Math.sqrt((1 + weatherPersistence.correlation) / 2),
      12,
    );
    expect(run.stdout).toContain(
      `r = ${weatherPersistence.correlation.toFixed(2)} from one day to the next (${weatherPersistence.pairs} pairs of days)`,
    );
    expect(readdirSync(results).sort()).toEqual([
      'load-rmse-by-month.svg',
      'load-week.svg',
      'results.json',
      'solar-nrmse-by-month.svg',
      'solar-week.svg',
    ]);
    expect(readFileSync(join(results, 'solar-week.svg'), 'utf8')).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
    expect(run.stdout).toContain(`${join(results, 'solar-week.svg')}: solar, a week`);
  });

  it('refuses a results directory under a file and a plot week outside the scored days, before the run', () => {
    const path = join(directory, 'checks.csv');
    writeHalfHourlyCsv(path, 40);
    const underFile = bench('--csv', path, ...SITE, '--results', join(path, 'results'));
    expect([underFile.status, underFile.stderr.split('\n')[0]]).toEqual([
      2,
      `error: --results ${join(path, 'results')}: ${path} is a file, not a directory`,
    ]);
    const results = join(directory, 'outside');
    const outside = bench('--csv', path, ...SITE, '--plot-week', '2024-01-01', '--results', results);
    expect(outside.status).toBe(2);
    expect(outside.stderr).toMatch(
      /--plot-week 2024-01-01 is not one of the scored days, 2025-05-\d\d\.\.2025-06-09/,
    );
    expect(outside.stdout).not.toContain('== Summary');
    expect(existsSync(results)).toBe(false);
  });

  it('scores load alone without a capacity, and tells of no array', () => {
    const rows = writeHalfHourlyCsv(join(directory, 'with-pv.csv'), 40);
    const path = join(directory, 'load-only.csv');
    const loadOnly = rows.map((row) => {
      const [stamp, , load] = row.split(',');
      return `${stamp},${load}`;
    });
    writeFileSync(path, `${['timestamp,load_w', ...loadOnly].join('\n')}\n`);
    const run = bench(
      '--csv',
      path,
      '--lat',
      '48.14',
      '--lon',
      '11.58',
      '--results',
      join(directory, 'load'),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^ {4}served: load (learned|baseline)$/m);
    expect(run.stdout).toMatch(/^ {2}model \(history, [^)]+\): \d+ hours, trained in [\d.]+ s$/m);
    expect(run.stdout).toMatch(/load \(b\): RMSE \d+ W/);
  });

  it('refuses PV whose day centres hours from solar noon: coordinates or time zone not the data’s', () => {
    const path = join(directory, 'elsewhere.csv');
    writeHalfHourlyCsv(path, 40);
    // The site of the data, but 100° west.
    const elsewhere = ['--capacity', '4kW', '--lat', '48.14', '--lon=-100'];
    const run = bench('--csv', path, ...elsewhere, '--results', join(directory, 'x'));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^error: PV's daily centre falls \d+\.\d h (after|before) solar noon at longitude -100°: the coordinates or the stamps' time zone are not the data's/,
    );
  });

  it('refuses weather whose clear sky centres hours from solar noon: another place’s file', () => {
    const path = join(directory, 'here.csv');
    writeHalfHourlyCsv(path, 40);
    // PSM3 as pvlib writes it, its clear sky peaking at 19:00 UTC: noon seven time zones west.
    const psm3 = join(directory, 'elsewhere-psm3.csv');
    const lines = [',ghi,temp_air,ghi_clear'];
    const start = Date.parse('2025-04-30T00:00:00Z');
    for (let at = start; at < start + 42 * 24 * HOUR_MS; at += HOUR_MS / 2) {
      const hour = (at / HOUR_MS) % 24;
      const clear = Math.max(0, 900 * Math.cos((Math.PI * (hour - 19)) / 14)).toFixed(1);
      lines.push(`${new Date(at).toISOString().replace('T', ' ').slice(0, 19)}+00:00,${clear},15,${clear}`);
    }
    writeFileSync(psm3, `${lines.join('\n')}\n`);
    const run = bench('--csv', path, '--psm3', psm3, ...SITE, '--results', join(directory, 'y'));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^error: .*elsewhere-psm3\.csv: its clear sky centres \d+\.\d h after solar noon at longitude 11\.58°: the file is for another place/,
    );
  });

  it('scores setting (a) only where the weather covers the scored days, and says so', () => {
    const rows = writeHalfHourlyCsv(join(directory, 'no-weather.csv'), 40);
    const withGhiBefore = (name: string, until: string) => {
      const path = join(directory, name);
      const lines = rows.map((row) => {
        const [stamp, pv] = row.split(',');
        return `${row},${stamp < until ? (Number(pv) / 4).toFixed(1) : ''}`;
      });
      writeFileSync(path, `${['Timestamp,PV Power (W),Load (W),GHI', ...lines].join('\n')}\n`);
      return bench('--csv', path, ...SITE, '--results', join(directory, name.replace('.csv', '')));
    };
    // The scored days are the last third, from 28 May.
    const none = withGhiBefore('weather-before.csv', '2025-05-25');
    expect(none.status).toBe(0);
    expect(none.stdout).toContain(
      "weather: none on the scored days' hours with PV, so setting (a) is not scored",
    );
    expect(none.stdout).not.toMatch(/^ {2}solar \(a\)/m);
    const part = withGhiBefore('weather-part.csv', '2025-06-03');
    expect(part.status).toBe(0);
    expect(part.stdout).toMatch(
      /weather: on \d+ % of the scored days' hours with PV; setting \(a\) forecasts the others without weather/,
    );
    expect(part.stdout).toMatch(/^ {2}solar \(a\): nRMSE/m);
  });

  it('says which model a training could not fit, and that its baseline serves', () => {
    const path = join(directory, 'fortnight.csv');
    writeHalfHourlyCsv(path, 45);
    // 14 days of May: 336 hours of load, under 240 of daylight for solar.
    const days = [
      '--train',
      '2025-05-01:2025-05-14',
      '--score',
      '2025-05-15:2025-06-14',
      '--retrain',
      'none',
    ];
    const run = bench('--csv', path, ...SITE, ...days, '--results', join(directory, 'fortnight'));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'solarHistory  not trained: under 240 hours with data, or under 24 of them to hold out; its baseline serves',
    );
    expect(run.stdout).toMatch(/ {4}loadHistory +\d+ trees/);
  });

  it('trains again as the product does, once the model is 30 days old, unless told not to', () => {
    const path = join(directory, 'young.csv');
    writeHalfHourlyCsv(path, 100);
    const site = ['--csv', path, ...SITE, '--results', join(directory, 'young')];
    const trainedOn = (stdout: string) =>
      [...stdout.matchAll(/trained history on \d+ h before (\d{4}-\d{2}-\d{2})/g)].map((match) => match[1]);
    const asTheProduct = bench(...site);
    expect(asTheProduct.status).toBe(0);
    expect(asTheProduct.stdout).toContain('retrain: product');
    const [first, second, ...more] = trainedOn(asTheProduct.stdout);
    expect(more).toEqual([]);
    expect((Date.parse(second) - Date.parse(first)) / (24 * HOUR_MS)).toBe(30);

    const once = bench(...site, '--retrain', 'none');
    expect(once.status).toBe(0);
    expect(trainedOn(once.stdout)).toEqual([first]);
  });

  it('scores the same data given as kWh per interval, semicolon separated with decimal commas', () => {
    const watts = join(directory, 'watts.csv');
    const rows = writeHalfHourlyCsv(watts, 40);
    const kilowattHours = rows.map((row) => {
      const [stamp, pv, load] = row.split(',');
      const kWh = (power: string) => (Number(power) / 2000).toFixed(7).replace('.', ',');
      return `${stamp};${kWh(pv)};${kWh(load)}`;
    });
    const energy = join(directory, 'energy.csv');
    writeFileSync(energy, `Timestamp;PV energy (kWh);Load energy (kWh)\n${kilowattHours.join('\n')}\n`);
    const inWatts = bench('--csv', watts, ...SITE, '--results', join(directory, 'watts'));
    const inEnergy = bench('--csv', energy, ...SITE, '--results', join(directory, 'energy'));
    expectSameScores(inEnergy, inWatts);
    expect(inEnergy.stdout).toContain('pv = PV energy (kWh): kWh per 30 min → W');
  });

  it('scores the same data saved by a spreadsheet as "Unicode text", its stamps day-first local times', () => {
    const csv = join(directory, 'utf8.csv');
    const rows = writeHalfHourlyCsv(csv, 40);
    const spreadsheetRows = rows.map((row) => {
      const [stamp, pv, load] = row.split(',');
      // 2025-05-01T00:00:00+02:00 → 01.05.2025 00:00, the wall time in Berlin (summer time all along).
      const [, year, month, day, time] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})/.exec(stamp)!;
      return [`${day}.${month}.${year} ${time}`, pv.replace('.', ','), load.replace('.', ',')].join('\t');
    });
    const text = `Time\tPV Power (W)\tLoad (W)\r\n${spreadsheetRows.join('\r\n')}\r\n`;
    const unicode = join(directory, 'unicode.txt');
    writeFileSync(unicode, unicodeText(text));
    const fromCsv = bench('--csv', csv, ...SITE, '--results', join(directory, 'utf8'));
    const fromSpreadsheet = bench(
      '--csv',
      unicode,
      ...SITE,
      '--time-zone',
      'Europe/Berlin',
      '--results',
      join(directory, 'unicode'),
    );
    expectSameScores(fromSpreadsheet, fromCsv);
    expect(fromSpreadsheet.stdout).toContain('time = Time, pv = PV Power (W), load = Load (W)');
  });

  it('scores an OPSD building read every 15 minutes as the same data in the plain layout', () => {
    const plain = join(directory, 'plain.csv');
    const rows = writeHalfHourlyCsv(plain, 40);
    const meters = join(directory, 'opsd.csv');
    writeOpsdMeters(meters, rows, true);
    const noExport = join(directory, 'opsd-no-export.csv');
    writeOpsdMeters(noExport, rows, false);
    const site = [...SITE, '--time-zone', 'Europe/Berlin'];
    const asPlain = bench('--csv', plain, ...site, '--results', join(directory, 'plain'));
    // Its stamps are UTC, and 40 days of May and June hold no clock change to tell it by.
    const opsd = ['--opsd-prefix', 'DE_KN_residential9', '--cest-shift', 'off', ...site];
    const asOpsd = bench('--opsd', meters, ...opsd, '--results', join(directory, 'opsd'));
    expectSameScores(asOpsd, asPlain);
    expect(asOpsd.stdout).toContain('rows every 15 min; meters: DE_KN_residential9_grid_import');
    expect(asOpsd.stdout).toContain('CEST rows taken as they are (--cest-shift off)');

    const withoutExport = bench('--opsd', noExport, ...opsd, '--results', join(directory, 'no-export'));
    expect(withoutExport.status).toBe(0);
    expect(withoutExport.stdout).toContain(
      'no load: DE_KN_residential9 has PV but no grid_export meter: what it used cannot be told from the grid import',
    );
    expect(scoreLines(withoutExport.stdout)).toEqual(
      scoreLines(asPlain.stdout).filter((line) => line.includes('solar')),
    );
  });

  it('reads a PVDAQ file whose offsets are right at those offsets, as its PV asks', () => {
    // Quarter-hour means of a south-facing array in Golden, October and November, stamped at
    // UTC−7 all along, as a logger on standard time writes them: read as wall time in
    // America/Denver, every row before the clock change of 4 November would move an hour early.
    const system = resolveSystem({
      latitude: 39.74,
      longitude: -105.18,
      capacityWatts: 3500,
      orientation: { tilt: 40, azimuth: 180 },
      seed: 3,
    });
    const lines = ['measured_on,ac_power'];
    const quarter = HOUR_MS / 4;
    for (
      let at = Date.parse('2012-10-01T00:00:00-07:00');
      at < Date.parse('2012-12-01T00:00:00-07:00');
      at += quarter
    ) {
      const stamp = new Date(at - 7 * HOUR_MS).toISOString().slice(0, 19).replace('T', ' ');
      lines.push(`${stamp}-07:00,${solarPowerAt(system, at + quarter / 2).toFixed(1)}`);
    }
    const path = join(directory, 'pvdaq-standard-time.csv');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const site = ['--capacity', '3.5kW', '--lat', '39.74', '--lon=-105.18', '--time-zone', 'America/Denver'];
    const run = bench('--pvdaq', path, ...site, '--results', join(directory, 'pvdaq'));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'stamps read at their offsets: then the PV does not jump at the clock changes',
    );
    expect(run.stdout).toContain('the stamps read at their offsets');
    expect(run.stdout).toMatch(/solar \(b\): nRMSE \d+\.\d %/);
    const local = bench(
      '--pvdaq',
      path,
      ...site,
      '--pvdaq-clock',
      'local',
      '--results',
      join(directory, 'local'),
    );
    expect(local.stdout).toContain("the stamps' offset dropped and their wall times read in America/Denver");
    expect(local.stdout).not.toContain('then the PV does not jump');
  });

  it('warns when wall-clock stamps do not follow the zone’s summer time', () => {
    // A logger on CET all year, its stamps without offsets, read as Europe/Berlin: from 30 March
    // every row is an hour off.
    const system = resolveSystem({ latitude: 48.14, longitude: 11.58, capacityWatts: 4000, seed: 7 });
    const lines = ['timestamp,pv_power_w'];
    for (
      let at = Date.parse('2025-03-01T00:00:00+01:00');
      at < Date.parse('2025-04-20T00:00:00+01:00');
      at += HOUR_MS / 2
    ) {
      const wall = new Date(at + HOUR_MS).toISOString().slice(0, 19);
      lines.push(`${wall},${solarPowerAt(system, at + HOUR_MS / 4).toFixed(1)}`);
    }
    const path = join(directory, 'standard-time.csv');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const asBerlin = bench(
      '--csv',
      path,
      ...SITE,
      '--time-zone',
      'Europe/Berlin',
      '--results',
      join(directory, 'berlin'),
    );
    expect(asBerlin.status).toBe(0);
    expect(asBerlin.stdout).toMatch(
      /PV centre's jump across the clock changes as read: −(5\d|6\d) min on 2025-03-30/,
    );
    expect(asBerlin.stdout).toContain(
      'the PV jumps about an hour where Europe/Berlin changes its clock: do the stamps follow it? ' +
        'Stamps on standard time all year want its fixed offset, --time-zone UTC+01:00',
    );
    const asCet = bench(
      '--csv',
      path,
      ...SITE,
      '--time-zone',
      'UTC+01:00',
      '--results',
      join(directory, 'cet'),
    );
    expect(asCet.status).toBe(0);
    expect(asCet.stdout).not.toContain('jump');
  });

  it('exits 1 saying why when an OPSD building has nothing to score', () => {
    const path = join(directory, 'battery-only.csv');
    const prefix = 'DE_KN_industrial9';
    const lines = [
      `utc_timestamp,cet_cest_timestamp,${prefix}_grid_import,${prefix}_storage_charge,${prefix}_storage_decharge`,
    ];
    for (let hour = 0; hour < 24 * 40; hour++) {
      const at = Date.parse('2016-01-01T00:00:00Z') + hour * HOUR_MS;
      lines.push(`${new Date(at).toISOString().slice(0, 19)}Z,x+0100,${hour},${hour / 10},${hour / 20}`);
    }
    writeFileSync(path, `${lines.join('\n')}\n`);
    const run = bench('--opsd', path, '--opsd-prefix', prefix, '--lat', '47.66', '--lon', '9.18');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `error: ${path}: nothing to score: ${prefix} has a battery but no grid_export meter: ` +
        'what it used cannot be told from the grid import, and it has no PV\n',
    );
  });
});
