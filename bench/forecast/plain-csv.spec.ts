import { dataErrorMessage } from './spec-support';
import { parsePlainCsv, PlainCsvOptions } from './plain-csv';
import { zoneOffsetMs } from './time-zones';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const START = Date.parse('2025-05-01T00:00:00Z');
const UTC: PlainCsvOptions = { timeZone: null, stamps: 'start' };

/** PV constant within each UTC hour (100 W × the hour of day), so every interval has the same hourly means. */
const pvAt = (at: number) => 100 * new Date(at).getUTCHours();

interface Rows {
  days?: number;
  minutes?: number;
  stamp?: (at: number) => string;
  header?: string;
  value?: (at: number) => string;
  skip?: (at: number) => boolean;
}

function csv({
  days = 31,
  minutes = 60,
  stamp = (at) => new Date(at).toISOString(),
  header = 'timestamp,pv_power_w',
  value = (at) => String(pvAt(at)),
  skip = () => false,
}: Rows = {}): string {
  const lines = [header];
  for (let at = START; at < START + days * 24 * HOUR_MS; at += minutes * MINUTE_MS) {
    if (!skip(at)) lines.push(`${stamp(at)},${value(at)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Wall-clock ISO stamp in a zone, with or without its offset. */
function local(at: number, timeZone: string, withOffset: boolean): string {
  const offset = zoneOffsetMs(at, timeZone);
  const wall = new Date(at + offset).toISOString().slice(0, 19);
  if (!withOffset) return wall;
  const minutes = Math.abs(offset / MINUTE_MS);
  const sign = offset < 0 ? '-' : '+';
  return `${wall}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const parseError = (text: string, options = UTC): string =>
  dataErrorMessage(() => parsePlainCsv(text, options, 'test.csv'));

describe('parsePlainCsv: intervals', () => {
  it.each([1, 5, 15, 30, 60])('resamples %i-minute rows to hourly means', (minutes) => {
    const series = parsePlainCsv(csv({ minutes }), UTC);
    expect(series.intervalMinutes).toBe(minutes);
    expect(series.pv!.size).toBe(31 * 24);
    for (const [hour, value] of series.pv!) expect(value).toBeCloseTo(pvAt(hour), 9);
    expect(series.gaps).toBe(0);
  });

  it('averages the intervals of an hour, not just its first sample', () => {
    // 15-minute rows worth 0, 1, 2, 3 W within each hour: the hour's mean is 1.5 W.
    const series = parsePlainCsv(
      csv({ minutes: 15, value: (at) => String((at % HOUR_MS) / (15 * MINUTE_MS)) }),
      UTC,
    );
    expect([...series.pv!.values()].every((value) => Math.abs(value - 1.5) < 1e-9)).toBe(true);
  });

  it('keeps an hour with three of its four quarters, drops one with two', () => {
    const quarter = (at: number) => (at % HOUR_MS) / (15 * MINUTE_MS);
    const noon = Date.parse('2025-05-10T12:00:00Z');
    const one = Date.parse('2025-05-10T13:00:00Z');
    const series = parsePlainCsv(
      csv({
        minutes: 15,
        skip: (at) =>
          (at >= noon && at < noon + HOUR_MS && quarter(at) === 3) ||
          (at >= one && at < one + HOUR_MS && quarter(at) >= 2),
      }),
      UTC,
    );
    expect(series.pv!.get(noon)).toBeCloseTo(1200, 9);
    expect(series.pv!.has(one)).toBe(false);
    expect(series.gaps).toBe(2);
  });

  it('reads stamps that mark the end of their interval', () => {
    const series = parsePlainCsv(
      csv({ minutes: 30, stamp: (at) => new Date(at + 30 * MINUTE_MS).toISOString() }),
      { timeZone: null, stamps: 'end' },
    );
    for (const [hour, value] of series.pv!) expect(value).toBeCloseTo(pvAt(hour), 9);
    expect(series.pv!.has(START)).toBe(true);
  });

  it('refuses intervals under a minute or over an hour', () => {
    expect(parseError(csv({ days: 1, minutes: 0.5 }))).toMatch(/30 s apart.*1 min to 1 h/);
    expect(parseError(csv({ days: 40, minutes: 120 }))).toMatch(/120 min apart.*1 min to 1 h/);
  });

  it('refuses rows off the interval, and says they are irregular', () => {
    const odd = Date.parse('2025-05-03T10:15:00Z');
    const text = csv({
      minutes: 15,
      stamp: (at) => new Date(at === odd ? at + 7 * MINUTE_MS : at).toISOString(),
    });
    expect(parseError(text)).toMatch(/irregular rows: 2025-05-03T10:22:00.000Z comes 22 min after/);
  });

  it('names the line of a row off the interval, and its stamp as written', () => {
    // 15-minute wall-clock rows from midnight (lines 2 to 25, to 05:45), then one at 05:52.
    const lines = ['timestamp;pv_w'];
    for (let minutes = 0; minutes < 6 * 60; minutes += 15)
      lines.push(`2025-03-18 ${new Date(minutes * MINUTE_MS).toISOString().slice(11, 16)};100`);
    lines.push('2025-03-18 05:52;100', '2025-03-18 06:00;100');
    expect(parseError(lines.join('\n'), { timeZone: 'Europe/Berlin', stamps: 'start' })).toMatch(
      /^test\.csv line 26: irregular rows: 2025-03-18 05:52 comes 7 min after the row before, not a whole number of the file's 15 min interval/,
    );
  });
});

describe('parsePlainCsv: time stamps', () => {
  it('takes the UTC offset of every stamp, across a change of summer time', () => {
    const text = csv({
      days: 45,
      minutes: 15,
      stamp: (at) => local(at, 'Europe/Berlin', true),
    });
    const series = parsePlainCsv(text.replace(/^timestamp/, 'timestamp'), UTC);
    for (const [hour, value] of series.pv!) expect(value).toBe(pvAt(hour));
    expect(series.offsets.get(120)).toBe(45 * 96);
    expect(series.commonOffsetZone).toBe('UTC+02:00');
  });

  it('splits hourly rows of a half-hour offset over the two UTC hours they straddle', () => {
    // Local whole hours in India are UTC half hours: each row is worth the UTC hour number it starts in.
    const half = 30 * MINUTE_MS;
    const series = parsePlainCsv(
      csv({
        stamp: (at) => local(at - half, 'Asia/Kolkata', true),
        value: (at) => String((at - half) / HOUR_MS),
      }),
      UTC,
    );
    const eleven = Date.parse('2025-05-10T11:00:00Z');
    expect(series.pv!.get(eleven)).toBeCloseTo(eleven / HOUR_MS, 9);
    // The last UTC hour has only the first half of its rows: the file ends at its middle.
    expect(series.pv!.has(START + (31 * 24 - 1) * HOUR_MS)).toBe(false);
    expect(series.pv!.size).toBe(31 * 24 - 1);
    expect(series.commonOffsetZone).toBe('UTC+05:30');
  });

  it('reads stamps without an offset in --time-zone, the repeated autumn hour included', () => {
    const start = Date.parse('2025-10-01T00:00:00Z');
    const lines = ['Timestamp,PV Power (W)'];
    for (let at = start; at < start + 40 * 24 * HOUR_MS; at += 15 * MINUTE_MS) {
      lines.push(`${local(at, 'Europe/Berlin', false).replace('T', ' ')},${pvAt(at)}`);
    }
    const series = parsePlainCsv(lines.join('\n'), { timeZone: 'Europe/Berlin', stamps: 'start' });
    expect(series.pv!.size).toBe(40 * 24);
    for (const [hour, value] of series.pv!) expect(value).toBe(pvAt(hour));
    expect(series.commonOffsetZone).toBeNull();
  });

  it('drops rows of the wall-clock hour skipped in spring, as loggers on a fixed grid write them', () => {
    const lines = ['timestamp,pv_w'];
    const firstDay = Date.UTC(2025, 2, 1);
    for (let day = 0; day < 40; day++)
      for (let minutes = 0; minutes < 24 * 60; minutes += 15) {
        const wall = new Date(firstDay + day * 24 * HOUR_MS + minutes * MINUTE_MS).toISOString();
        lines.push(`${wall.slice(0, 10)} ${wall.slice(11, 16)},100`);
      }
    const series = parsePlainCsv(lines.join('\n'), { timeZone: 'Europe/Berlin', stamps: 'start' });
    expect(series.skippedWallTimes).toBe(4);
    // 2025-03-30 02:00–02:45 do not exist in Berlin: the clock goes from 01:59 CET to 03:00 CEST.
    expect(series.pv!.size).toBe(40 * 24 - 1);
    expect([...series.pv!.values()].every((value) => value === 100)).toBe(true);
  });

  it('reads day-first dotted stamps (01.06.2025 12:00, 1.6.2025 9:05:00) as wall time in the zone given', () => {
    const dotted = (padded: boolean) => (at: number) => {
      const [date, time] = local(at, 'Europe/Berlin', false).split('T');
      const [year, month, day] = date.split('-');
      const trim = (part: string) => (padded ? part : String(Number(part)));
      return padded
        ? `${day}.${month}.${year} ${time.slice(0, 5)}`
        : `${trim(day)}.${trim(month)}.${year} ${trim(time.slice(0, 2))}:${time.slice(3)}`;
    };
    const berlin: PlainCsvOptions = { timeZone: 'Europe/Berlin', stamps: 'start' };
    const expected = parsePlainCsv(csv(), UTC).pv;
    expect(parsePlainCsv(csv({ stamp: dotted(true) }), berlin).pv).toEqual(expected);
    expect(parsePlainCsv(csv({ stamp: dotted(false) }), berlin).pv).toEqual(expected);
    expect(parseError('timestamp,pv\n31.04.2025 10:00,3\n', berlin)).toMatch(
      /"31.04.2025 10:00" is not a valid date/,
    );
    expect(parseError('timestamp,pv\n01.05.2025 10:00,3\n')).toMatch(/has no UTC offset.*--time-zone/);
  });

  it('reads Unix time in seconds or milliseconds as UTC', () => {
    for (const stamp of [(at: number) => String(at / 1000), (at: number) => String(at)]) {
      const series = parsePlainCsv(csv({ stamp }), UTC);
      expect(series.pv!.size).toBe(31 * 24);
      for (const [hour, value] of series.pv!) expect(value).toBe(pvAt(hour));
      expect(series.commonOffsetZone).toBe('UTC+00:00');
    }
  });

  it('refuses a stamp without an offset when no time zone is given, naming the option', () => {
    const text = csv({ stamp: (at) => new Date(at).toISOString().slice(0, 16) });
    expect(parseError(text)).toMatch(
      /line 2: the timestamp "2025-05-01T00:00" has no UTC offset.*--time-zone/,
    );
  });

  it('refuses what is not a time stamp, repeated instants and rows out of order', () => {
    expect(parseError('timestamp,pv\n01/05/2025 10:00,3\n')).toMatch(
      /line 2: "01\/05\/2025 10:00" is not an ISO 8601 timestamp .*, a day-first dotted one .* nor Unix time/,
    );
    expect(parseError('timestamp,pv\n2025-02-30T10:00Z,3\n')).toMatch(/not a valid date/);
    // Month 13 or 00 is no month: Date.UTC would roll it into the next or the last year.
    expect(parseError('timestamp,pv\n2025-13-01T10:00Z,3\n')).toMatch(
      /"2025-13-01T10:00Z" is not a valid date/,
    );
    expect(parseError('timestamp,pv\n01.00.2025 10:00,3\n', { timeZone: 'UTC', stamps: 'start' })).toMatch(
      /not a valid date/,
    );
    expect(parseError('timestamp,pv\n2025-05-01T10:00Z,3\n2025-05-01T12:00+02:00,4\n')).toMatch(
      /line 3: .* same instant as line 2/,
    );
    expect(parseError('timestamp,pv\n2025-05-01T10:00Z,3\n2025-05-01T09:00Z,4\n')).toMatch(
      /earlier than line 2/,
    );
  });
});

describe('parsePlainCsv: columns and values', () => {
  it('finds columns by name whatever the case, spacing and unit punctuation', () => {
    const header = 'Time Stamp,PV Power (W),Load_W,GHI (W/m²),Air Temperature (°C)';
    const text = csv({ header: header.replace('Time Stamp', 'TIMESTAMP'), value: () => '-2,500,-1,12.5' });
    const series = parsePlainCsv(text, UTC);
    expect(series.columns).toEqual({
      time: 'TIMESTAMP',
      pv: 'PV Power (W)',
      load: 'Load_W',
      ghi: 'GHI (W/m²)',
      temperature: 'Air Temperature (°C)',
    });
    expect(series.pv!.get(START)).toBe(0);
    expect(series.load!.get(START)).toBe(500);
    expect(series.ghi!.get(START)).toBe(0);
    expect(series.temperature!.get(START)).toBe(12.5);
    expect(series.clipped).toEqual({ pv: 31 * 24, load: 0, ghi: 31 * 24 });
  });

  it('lists the header names it does not read', () => {
    const text = csv({ header: 'timestamp,pv_power_w,Irradiance,Temp', value: () => '800,650,21' });
    const series = parsePlainCsv(text, UTC);
    expect(series.columns).toEqual({ time: 'timestamp', pv: 'pv_power_w' });
    expect(series.unread).toEqual(['Irradiance', 'Temp']);
    expect(series.ghi).toBeNull();
    expect(series.temperature).toBeNull();
    expect(series.pv!.get(START)).toBe(800);
  });

  it('reads ac_power as PV power in W, and ac_power_kw in kW', () => {
    const watts = parsePlainCsv(csv({ header: 'timestamp,ac_power', value: () => '1500' }), UTC);
    expect(watts.columns.pv).toBe('ac_power');
    expect(watts.units.pv).toBe('W');
    expect(watts.pv!.get(START)).toBe(1500);
    const kilowatts = parsePlainCsv(csv({ header: 'timestamp,ac_power_kw', value: () => '1.5' }), UTC);
    expect(kilowatts.columns.pv).toBe('ac_power_kw');
    expect(kilowatts.units.pv).toBe('kW');
    expect(kilowatts.pv!.get(START)).toBe(1500);
  });

  it('takes a load column alone', () => {
    const series = parsePlainCsv(csv({ header: 'datetime,consumption' }), UTC);
    expect(series.pv).toBeNull();
    expect(series.load!.size).toBe(31 * 24);
  });

  it('turns kW, and energy per interval in Wh or kWh, into mean power in W', () => {
    const kilowatts = parsePlainCsv(csv({ header: 'timestamp,PV (kW)', value: () => '1.5' }), UTC);
    expect(kilowatts.units).toEqual({ pv: 'kW', load: 'W' });
    expect(kilowatts.pv!.get(START)).toBe(1500);
    const halfHours = csv({
      header: 'timestamp,pv_energy_kwh,consumption_Wh',
      minutes: 30,
      value: () => '0.75,120',
    });
    const energy = parsePlainCsv(halfHours, UTC);
    expect(energy.units).toEqual({ pv: 'kWh', load: 'Wh' });
    expect(energy.pv!.get(START)).toBe(1500);
    expect(energy.load!.get(START)).toBe(240);
    const quarters = parsePlainCsv(
      csv({ header: 'timestamp,load_kwh', minutes: 15, value: () => '0.1' }),
      UTC,
    );
    expect(quarters.load!.get(START)).toBeCloseTo(400, 9);
  });

  it('refuses a file with neither PV nor load, two PV columns and text for a number', () => {
    expect(parseError(csv({ header: 'timestamp,pv_w,pv_kw', value: () => '1,2' }))).toMatch(
      /two PV power columns, "pv_w" and "pv_kw"/,
    );
    expect(parseError(csv({ header: 'timestamp,ghi' }))).toMatch(/no PV or load column.*pv_power_w/);
    expect(parseError(csv({ header: 'when,pv' }))).toMatch(/no timestamp column.*timestamp/);
    expect(parseError(csv({ header: 'timestamp,pv,solar_w', value: () => '1,2' }))).toMatch(
      /two PV power columns/,
    );
    expect(parseError(csv({ value: () => 'abc' }))).toMatch(/line 2: pv_power_w "abc" is not a number/);
  });

  it('reads semicolon or tab separated files, with decimal commas or points', () => {
    const lines = ['timestamp;PV (W);Load (W);Temperature (°C)'];
    for (let at = START; at < START + 31 * 24 * HOUR_MS; at += HOUR_MS)
      lines.push(`${new Date(at).toISOString()};1234,5;-2;7.25`);
    const semicolons = `${lines.join('\n')}\n`;
    const series = parsePlainCsv(semicolons, UTC);
    expect(series.pv!.get(START)).toBe(1234.5);
    expect(series.load!.get(START)).toBe(0);
    expect(series.temperature!.get(START)).toBe(7.25);
    const tabs = semicolons.replace(/;/g, '\t');
    expect(parsePlainCsv(tabs, UTC).pv!.get(START)).toBe(1234.5);
    expect(parseError(semicolons.replace(/1234,5/g, '1.234,5'))).toMatch(/"1\.234,5" is not a number/);
  });

  it('skips and counts rows whose every cell is empty, anywhere in the file, as spreadsheets write them', () => {
    const rows = csv().trimEnd().split('\n');
    const withEmptyRows = [
      ...rows.slice(0, 1),
      ',',
      ...rows.slice(1, 100),
      ' , ',
      ...rows.slice(100),
      '"",',
      ',',
      '',
    ];
    const series = parsePlainCsv(withEmptyRows.join('\n'), UTC);
    expect(series.emptyRows).toBe(4);
    expect(series.rows).toBe(31 * 24);
    expect(series.pv).toEqual(parsePlainCsv(csv(), UTC).pv);
    // Blank lines, as at the end of most files, are not counted.
    expect(parsePlainCsv(`${csv()}\n\n`, UTC).emptyRows).toBe(0);
    const semicolons = ['timestamp;pv_w', ...rows.slice(1).map((row) => row.replace(',', ';')), ';', ' ; '];
    expect(parsePlainCsv(semicolons.join('\n'), UTC).emptyRows).toBe(2);
  });

  it('refuses a row with values but no timestamp', () => {
    const rows = csv().split('\n');
    expect(parseError([...rows.slice(0, 5), ',5', ...rows.slice(5)].join('\n'))).toMatch(
      /^test\.csv line 6: no timestamp$/,
    );
  });

  it('reads empty cells as missing', () => {
    const series = parsePlainCsv(csv({ value: (at) => (at === START ? '' : '5') }), UTC);
    expect(series.pv!.has(START)).toBe(false);
    expect(series.pv!.size).toBe(31 * 24 - 1);
  });
});

describe('parsePlainCsv: data that cannot be scored', () => {
  it('refuses too short a file', () => {
    expect(parseError(csv({ days: 10 }))).toMatch(/too short: PV covers 10\.0 days .* at least 30/);
  });

  it('refuses a file with more gaps than data', () => {
    // Only every third day present.
    const text = csv({
      days: 60,
      minutes: 30,
      skip: (at) => Math.floor((at - START) / 86_400_000) % 3 !== 0,
    });
    expect(parseError(text)).toMatch(
      /too sparse: only 3\d % of the hours .* have PV \(19 gaps, the longest 48 h/,
    );
  });

  it('refuses a file whose every hour misses too many rows', () => {
    // 15-minute rows with the second half of every hour gone: no hour reaches 75 % coverage.
    const text = csv({ minutes: 15, skip: (at) => at % HOUR_MS >= 30 * MINUTE_MS });
    expect(parseError(text)).toMatch(/no hour has PV: an hour counts when its rows cover 75 % of it/);
  });
});
