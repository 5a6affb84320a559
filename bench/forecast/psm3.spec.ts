import { dataErrorMessage } from './spec-support';
import { parsePsm3 } from './psm3';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const START = Date.parse('2011-06-01T00:00:00Z');

/** A sample: its instant, GHI, air temperature and, where the file has the column, clear-sky GHI. */
interface Sample {
  at: number;
  ghi: number;
  temperature: number;
  clear?: number;
}

/** A PSM3 file as pandas writes pvlib's frame: the unnamed index first, its stamps in UTC (`+00:00`). */
function psm3(samples: Sample[], withClear = false): string {
  const lines = [withClear ? ',ghi,temp_air,ghi_clear' : ',ghi,temp_air'];
  for (const { at, ghi, temperature, clear } of samples) {
    const stamp = `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')}+00:00`;
    lines.push(`${stamp},${ghi},${temperature}${withClear ? `,${clear}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Samples every `minutes` from START, the i-th worth `ghi[i]`, with a temperature of its own. */
const every = (minutes: number, ghi: number[], from = START): Sample[] =>
  ghi.map((value, index) => ({
    at: from + index * minutes * MINUTE_MS,
    ghi: value,
    temperature: 10 + index,
  }));

const psm3Error = (text: string): string => dataErrorMessage(() => parsePsm3(text, 'psm3.csv'));

describe('parsePsm3: hourly means of instantaneous samples', () => {
  it('weighs half-hourly samples at :00, :30 and :00 by a quarter, a half and a quarter', () => {
    const ghi = [100, 260, 410, 530, 590, 610, 570];
    const series = parsePsm3(psm3(every(30, ghi)));
    expect(series.intervalMinutes).toBe(30);
    expect(series.rows).toBe(7);
    expect([...series.ghi.keys()]).toEqual([START, START + HOUR_MS, START + 2 * HOUR_MS]);
    expect(series.ghi.get(START)).toBeCloseTo(0.25 * 100 + 0.5 * 260 + 0.25 * 410, 10);
    expect(series.ghi.get(START + HOUR_MS)).toBeCloseTo(0.25 * 410 + 0.5 * 530 + 0.25 * 590, 10);
    expect(series.ghi.get(START + 2 * HOUR_MS)).toBeCloseTo(0.25 * 590 + 0.5 * 610 + 0.25 * 570, 10);
    // Temperatures 10, 11, 12 in the first hour.
    expect(series.temperature.get(START)).toBeCloseTo(0.25 * 10 + 0.5 * 11 + 0.25 * 12, 10);
  });

  it('weighs hourly samples at :30 by 1/8, 3/4 and 1/8 of the one before, its own and the one after', () => {
    const ghi = [120, 340, 515, 640];
    const series = parsePsm3(psm3(every(60, ghi, START - 30 * MINUTE_MS)));
    expect(series.intervalMinutes).toBe(60);
    // 23:30, 00:30, 01:30, 02:30 span the hours 00:00 and 01:00 only.
    expect([...series.ghi.keys()]).toEqual([START, START + HOUR_MS]);
    expect(series.ghi.get(START)).toBeCloseTo(120 / 8 + (3 / 4) * 340 + 515 / 8, 10);
    expect(series.ghi.get(START + HOUR_MS)).toBeCloseTo(340 / 8 + (3 / 4) * 515 + 640 / 8, 10);
  });

  it('gives 15-minute samples on the lines between half-hourly ones the half-hourly means', () => {
    const ghi = [100, 260, 410, 530, 590, 610, 570];
    const halfHours = parsePsm3(psm3(every(30, ghi)));
    const quarters = ghi.flatMap((value, index) =>
      index === ghi.length - 1 ? [value] : [value, (value + ghi[index + 1]) / 2],
    );
    const series = parsePsm3(psm3(every(15, quarters)));
    expect(series.intervalMinutes).toBe(15);
    expect([...series.ghi.keys()]).toEqual([...halfHours.ghi.keys()]);
    for (const [hour, value] of halfHours.ghi) expect(series.ghi.get(hour)).toBeCloseTo(value, 10);
  });

  it('reads the clear-sky GHI when the file has it, and leaves it empty when not', () => {
    const samples = every(30, [100, 260, 410]).map((sample, index) => ({
      ...sample,
      clear: [150, 300, 450][index],
    }));
    const without = parsePsm3(psm3(samples));
    expect(without.ghiClear.size).toBe(0);
    expect(without.ghi.get(START)).toBeCloseTo(257.5, 10);
    const withClear = parsePsm3(psm3(samples, true));
    expect([...withClear.ghiClear.keys()]).toEqual([START]);
    expect(withClear.ghiClear.get(START)).toBeCloseTo(0.25 * 150 + 0.5 * 300 + 0.25 * 450, 10);
    expect(withClear.ghi.get(START)).toBeCloseTo(257.5, 10);
  });

  it('takes the offset of each stamp: 00:00 at −07:00 is 07:00 UTC', () => {
    const text = [
      ',ghi,temp_air',
      '2011-01-01 00:00:00-07:00,0,-5',
      '2011-01-01 00:30:00-07:00,0,-6',
      '2011-01-01 01:00:00-07:00,0,-8',
    ].join('\n');
    const series = parsePsm3(text);
    const seven = Date.parse('2011-01-01T07:00:00Z');
    expect([...series.temperature.keys()]).toEqual([seven]);
    expect(series.temperature.get(seven)).toBeCloseTo(0.25 * -5 + 0.5 * -6 + 0.25 * -8, 10);
  });
});

describe('parsePsm3: gaps, values and order', () => {
  it('leaves out the hours a gap of more than an hour between samples covers', () => {
    // 00:00, 00:30, 01:00, then 02:30 (90 minutes on), 03:00, 03:30, 04:00.
    const samples = [
      ...every(30, [100, 200, 300]),
      ...every(30, [400, 500, 600, 700], START + 150 * MINUTE_MS),
    ];
    const series = parsePsm3(psm3(samples));
    expect([...series.ghi.keys()]).toEqual([START, START + 3 * HOUR_MS]);
    expect(series.ghi.get(START + 3 * HOUR_MS)).toBeCloseTo(0.25 * 500 + 0.5 * 600 + 0.25 * 700, 10);
    // A gap of exactly an hour is a line to integrate, as between hourly samples.
    const hourApart = parsePsm3(
      psm3([...every(30, [100, 200, 300]), ...every(30, [400, 500, 600], START + 2 * HOUR_MS)]),
    );
    expect(hourApart.ghi.get(START + HOUR_MS)).toBeCloseTo((300 + 400) / 2, 10);
  });

  it('sets a negative mean GHI to 0, and keeps negative temperatures', () => {
    const samples = every(30, [-2, -3, -2]).map((sample) => ({ ...sample, temperature: -4 }));
    const series = parsePsm3(psm3(samples));
    expect(series.ghi.get(START)).toBe(0);
    expect(series.temperature.get(START)).toBeCloseTo(-4, 10);
  });

  it('refuses rows out of time order, and a row twice', () => {
    const [first, second, third] = every(30, [100, 200, 300]);
    expect(psm3Error(psm3([first, third, second]))).toMatch(
      /psm3\.csv: 2011-06-01 00:30:00\+00:00 is not after the row before; rows must be in time order/,
    );
    expect(psm3Error(psm3([first, second, second]))).toMatch(/is not after the row before/);
  });

  it('refuses a file without a ghi or temp_air column, naming the columns it has', () => {
    expect(psm3Error('time,dni,temp_air\n2011-06-01 00:00:00+00:00,0,10\n')).toMatch(
      /psm3\.csv: no column ghi \(have time, dni, temp_air\)/,
    );
    expect(psm3Error('time,ghi,air_temp\n2011-06-01 00:00:00+00:00,0,10\n')).toMatch(
      /no column temp_air or Temperature \(have time, ghi, air_temp\)/,
    );
  });

  it('reads the columns by NSRDB’s names too, ignoring case, as older pvlib wrote them', () => {
    const text = [
      ',Year,Month,Day,Hour,Minute,Temperature,GHI,Clearsky GHI,DNI,DHI',
      '2011-06-01 00:00:00+00:00,2011,6,1,0,0,10,100,150,0,0',
      '2011-06-01 00:30:00+00:00,2011,6,1,0,30,12,200,250,0,0',
      '2011-06-01 01:00:00+00:00,2011,6,1,1,0,14,300,350,0,0',
    ].join('\n');
    const series = parsePsm3(text, 'psm3.csv');
    expect(series.ghi.get(START)).toBeCloseTo(200, 10);
    expect(series.ghiClear.get(START)).toBeCloseTo(250, 10);
    expect(series.temperature.get(START)).toBeCloseTo(12, 10);
    const lowerCase = parsePsm3(
      text.replace(/^[^\n]*/, ',year,month,day,hour,minute,TEMP_AIR,Ghi,clearsky ghi,dni,dhi'),
    );
    expect(lowerCase.ghi).toEqual(series.ghi);
    expect(lowerCase.ghiClear).toEqual(series.ghiClear);
    expect(lowerCase.temperature).toEqual(series.temperature);
  });

  it('refuses a stamp it cannot read', () => {
    expect(psm3Error(',ghi,temp_air\n06/01/2011 00:00,0,10\n')).toMatch(
      /psm3\.csv: bad time 06\/01\/2011 00:00/,
    );
  });

  it('refuses a date the calendar does not have, naming its line', () => {
    const text = [
      ',ghi,temp_air',
      '2011-02-28 23:30:00+00:00,0,10',
      '',
      '2011-02-29 00:00:00+00:00,0,10',
    ].join('\n');
    expect(psm3Error(text)).toBe('psm3.csv line 4: "2011-02-29 00:00:00+00:00" is not a valid date and time');
    expect(psm3Error(',ghi,temp_air\n2011-06-01 24:00:00+00:00,0,10\n')).toMatch(
      /line 2: "2011-06-01 24:00:00\+00:00" is not a valid date and time/,
    );
  });
});

describe('parsePsm3: the file as NSRDB serves it', () => {
  const METADATA_NAMES =
    'Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation,Local Time Zone';
  const COLUMNS = 'Year,Month,Day,Hour,Minute,DHI,DNI,GHI,Clearsky GHI,Temperature';
  /** Two metadata rows (names, values with the Time Zone in hours), then Year..Minute and the values. */
  const nsrdb = (zone: string, rows: string[], location = '149190', columns = COLUMNS) =>
    [METADATA_NAMES, `NSRDB,${location},-,-,-,39.73,-105.18,${zone},1829,-7`, columns, ...rows].join('\n');
  const lastRowsOf2011 = ['2011,12,31,23,0,0,0,100,150,10', '2011,12,31,23,30,0,0,200,250,12'];
  const firstRowsOf2012 = ['2012,1,1,0,0,0,0,300,350,14', '2012,1,1,0,30,0,0,400,450,16'];

  it('reads the stamps in the metadata’s Time Zone and the columns by their NSRDB names', () => {
    const series = parsePsm3(
      nsrdb('-7', [
        '2011,6,1,0,0,0,0,100,150,10',
        '2011,6,1,0,30,0,0,200,250,12',
        '2011,6,1,1,0,0,0,300,350,14',
      ]),
      'nsrdb.csv',
    );
    // 00:00 at UTC−7 is 07:00Z.
    const hour = Date.parse('2011-06-01T07:00:00Z');
    expect([...series.ghi.keys()]).toEqual([hour]);
    expect(series.ghi.get(hour)).toBeCloseTo(0.25 * 100 + 0.5 * 200 + 0.25 * 300, 10);
    expect(series.ghiClear.get(hour)).toBeCloseTo(0.25 * 150 + 0.5 * 250 + 0.25 * 350, 10);
    expect(series.temperature.get(hour)).toBeCloseTo(12, 10);
    expect(series.rows).toBe(3);
  });

  it('takes Time Zone 0 for stamps in UTC, and names what it cannot read', () => {
    const series = parsePsm3(
      nsrdb('0', ['2011,6,1,0,30,0,0,100,0,10', '2011,6,1,1,30,0,0,200,0,10']),
      'nsrdb.csv',
    );
    expect(series.intervalMinutes).toBe(60);
    expect(series.ghi.size).toBe(0); // two samples an hour apart span no whole UTC hour
    expect(psm3Error(nsrdb('-7', ['2011,6,x,0,0,0,0,100,150,10']))).toMatch(
      /psm3\.csv: bad time 2011 6 x 0 0/,
    );
    expect(psm3Error(nsrdb('', ['2011,6,1,0,0,0,0,100,150,10']))).toMatch(/no Time Zone in the metadata row/);
  });

  it('reads yearly files joined as they come, passing over the second file’s header rows', () => {
    const joined = `${nsrdb('0', lastRowsOf2011)}\n${nsrdb('0', firstRowsOf2012)}\n`;
    const series = parsePsm3(joined, 'nsrdb.csv');
    expect(series.rows).toBe(4);
    const newYear = Date.parse('2011-12-31T23:00:00Z');
    expect([...series.ghi.keys()]).toEqual([newYear]);
    expect(series.ghi.get(newYear)).toBeCloseTo(0.25 * 100 + 0.5 * 200 + 0.25 * 300, 10);
  });

  it('refuses a second header of another site or with other columns, naming its line', () => {
    expect(psm3Error(`${nsrdb('-7', lastRowsOf2011)}\n${nsrdb('-6', firstRowsOf2012)}`)).toBe(
      'psm3.csv line 7: a second NSRDB header (files joined) for another site: its Time Zone is -6, ' +
        "the first's -7; join the years of one site only",
    );
    expect(psm3Error(`${nsrdb('-7', lastRowsOf2011)}\n${nsrdb('-7', firstRowsOf2012, '149191')}`)).toMatch(
      /line 7: a second NSRDB header \(files joined\) for another site: its Location ID is 149191/,
    );
    const otherColumns = COLUMNS.replace('DHI,DNI', 'DNI,DHI');
    expect(
      psm3Error(`${nsrdb('-7', lastRowsOf2011)}\n${nsrdb('-7', firstRowsOf2012, '149190', otherColumns)}`),
    ).toBe(
      'psm3.csv line 8: a second NSRDB header (files joined) whose columns are not those of line 3; ' +
        'join files with the same columns',
    );
  });

  it('refuses a day the month does not have, naming its line', () => {
    expect(psm3Error(nsrdb('-7', ['2011,4,30,23,30,0,0,0,0,10', '2011,4,31,0,0,0,0,0,0,10']))).toBe(
      'psm3.csv line 5: "2011 4 31 0 0" is not a valid date and time',
    );
    expect(psm3Error(nsrdb('-7', ['2011,2,29,0,0,0,0,0,0,10']))).toMatch(
      /line 4: "2011 2 29 0 0" is not a valid date/,
    );
  });
});
