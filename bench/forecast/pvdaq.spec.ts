import { dataErrorMessage } from './spec-support';
import { parsePvdaq, PvdaqOptions, pvdaqPowerColumn } from './pvdaq';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const DENVER: PvdaqOptions = { timeZone: 'America/Denver', clock: 'local', column: null, stamps: 'start' };

/** Wall-clock time as if it were UTC, ms: `wall(2012, 7, 1, 12)` is 2012-07-01 12:00 on the site's clock. */
const wall = (year: number, month: number, day: number, hour = 0, minute = 0) =>
  Date.UTC(year, month - 1, day, hour, minute);

/** Hour and minute of a wall time as one number: 12:45 is 1245. */
const clock = (at: number) => 100 * new Date(at).getUTCHours() + new Date(at).getUTCMinutes();

interface Rows {
  /** First wall-clock row, as `wall` gives it. */
  from: number;
  minutes: number;
  header?: string;
  value?: (at: number) => string;
  skip?: (at: number) => boolean;
}

/**
 * A PVDAQ file: `measured_on` the wall time with the site's standard-time offset written on every
 * row, whatever the season, as the PVDAQ extracts write it. Long enough (31 days) to be scored.
 */
function pvdaq({
  from,
  minutes,
  header = 'measured_on,ac_power',
  value = (at) => String(clock(at)),
  skip = () => false,
}: Rows): string {
  const lines = [header];
  for (let at = from; at < from + 31 * 24 * HOUR_MS; at += minutes * MINUTE_MS) {
    if (!skip(at))
      lines.push(`${new Date(at).toISOString().slice(0, 19).replace('T', ' ')}-07:00,${value(at)}`);
  }
  return `${lines.join('\n')}\n`;
}

const SUMMER = wall(2012, 6, 15);
const WINTER = wall(2012, 1, 1);

/**
 * The days a 1-minute file skips: rows on the first 16 days and the last of 31 only still span 31
 * days with over half their hours there, as scoring needs, in half the rows (a month of minutes
 * parses slowly).
 */
const midMonth = (at: number) => {
  const day = Math.floor((at - SUMMER) / (24 * HOUR_MS));
  return day >= 16 && day < 30;
};
const ONE_MINUTE_HOURS = 17 * 24;

describe('pvdaqPowerColumn', () => {
  it('takes the only column beside measured_on', () => {
    expect(pvdaqPowerColumn(['measured_on', 'power'], null, 'pvdaq.csv')).toBe('power');
  });

  it('takes the only ac_power column among several', () => {
    expect(
      pvdaqPowerColumn(['measured_on', 'ac_power', 'dc_power', 'poa_irradiance'], null, 'pvdaq.csv'),
    ).toBe('ac_power');
    expect(pvdaqPowerColumn(['measured_on', 'dc_power', 'AC_Power'], null, 'pvdaq.csv')).toBe('AC_Power');
  });

  it('refuses to guess between several columns, naming them and the option', () => {
    expect(
      dataErrorMessage(() =>
        pvdaqPowerColumn(['measured_on', 'dc_power', 'poa_irradiance'], null, 'pvdaq.csv'),
      ),
    ).toMatch(/^pvdaq\.csv: several value columns \(dc_power, poa_irradiance\); .*--pvdaq-column/);
    expect(
      dataErrorMessage(() =>
        pvdaqPowerColumn(['measured_on', 'ac_power_1', 'ac_power_2'], null, 'pvdaq.csv'),
      ),
    ).toMatch(/several value columns \(ac_power_1, ac_power_2\).*--pvdaq-column/);
    expect(dataErrorMessage(() => pvdaqPowerColumn(['measured_on'], null, 'pvdaq.csv'))).toMatch(
      /no value column; name the AC power column with --pvdaq-column/,
    );
  });

  it('names the option for a file of another layout given as PVDAQ', () => {
    const opsd = [
      'utc_timestamp',
      'cet_cest_timestamp',
      'DE_KN_residential4_grid_import',
      'DE_KN_residential4_pv',
    ];
    expect(dataErrorMessage(() => pvdaqPowerColumn(opsd, null, 'f.csv'))).toBe(
      'f.csv: this is an Open Power System Data household file: give it as --opsd, not a PVDAQ export',
    );
    const nsrdb = ['Source', 'Location ID', 'City', 'Time Zone', 'Latitude'];
    expect(dataErrorMessage(() => pvdaqPowerColumn(nsrdb, null, 'f.csv'))).toBe(
      'f.csv: this is NSRDB weather: give it as --psm3 beside the PV file, not a PVDAQ export',
    );
    const pvlib = ['', 'Year', 'temp_air', 'ghi', 'ghi_clear'];
    expect(dataErrorMessage(() => pvdaqPowerColumn(pvlib, null, 'f.csv'))).toMatch(
      /PSM3 weather: give it as --psm3/,
    );
  });

  it('takes the column named, even beside an ac_power one', () => {
    expect(pvdaqPowerColumn(['measured_on', 'ac_power', 'dc_power'], 'dc_power', 'pvdaq.csv')).toBe(
      'dc_power',
    );
  });
});

describe('parsePvdaq: columns', () => {
  it('reads the AC power column and leaves the others unread', () => {
    const text = pvdaq({
      from: SUMMER,
      minutes: 15,
      header: 'measured_on,ac_power,dc_power,poa_irradiance',
      value: () => '1000,1100,800',
    });
    const series = parsePvdaq(text, DENVER, 'pvdaq.csv');
    expect(series.columns).toEqual({ time: 'measured_on', pv: 'ac_power' });
    expect(series.unread).toEqual(['dc_power', 'poa_irradiance']);
    expect(series.ghi).toBeNull();
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe(1000);
  });

  it('reads the column named in the options', () => {
    const text = pvdaq({
      from: SUMMER,
      minutes: 15,
      header: 'measured_on,ac_power,dc_power',
      value: () => '1000,1100',
    });
    const series = parsePvdaq(text, { ...DENVER, column: 'dc_power' }, 'pvdaq.csv');
    expect(series.columns.pv).toBe('dc_power');
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe(1100);
    expect(dataErrorMessage(() => parsePvdaq(text, { ...DENVER, column: 'power' }, 'pvdaq.csv'))).toMatch(
      /pvdaq\.csv: no column power \(have measured_on, ac_power, dc_power\) for --pvdaq-column/,
    );
  });

  it('reads an ac_power_kw column in kW', () => {
    const text = pvdaq({ from: SUMMER, minutes: 15, header: 'measured_on,ac_power_kw', value: () => '1.5' });
    const series = parsePvdaq(text, DENVER, 'pvdaq.csv');
    expect(series.units.pv).toBe('kW');
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe(1500);
  });

  it('refuses a file with several value columns and no ac_power one', () => {
    const text = pvdaq({ from: SUMMER, minutes: 15, header: 'measured_on,dc_power,poa_irradiance' });
    expect(dataErrorMessage(() => parsePvdaq(text, DENVER, 'pvdaq.csv'))).toMatch(
      /several value columns \(dc_power, poa_irradiance\).*--pvdaq-column/,
    );
  });
});

describe('parsePvdaq: time stamps', () => {
  it('drops the fixed offset and reads the wall time in summer time (MDT, UTC−6)', () => {
    const series = parsePvdaq(pvdaq({ from: SUMMER, minutes: 15 }), DENVER);
    // Wall 12:00, 12:15, 12:30, 12:45 stamped -07:00 are 18:00–19:00Z, not 19:00–20:00Z.
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe((1200 + 1215 + 1230 + 1245) / 4);
    expect(series.pv!.get(Date.parse('2012-07-01T19:00:00Z'))).toBe((1300 + 1315 + 1330 + 1345) / 4);
    expect(series.intervalMinutes).toBe(15);
    expect(series.pv!.size).toBe(31 * 24);
    expect(series.commonOffsetZone).toBeNull();
  });

  it('reads the stamps at their offset with the offset clock, summer or not', () => {
    const series = parsePvdaq(pvdaq({ from: SUMMER, minutes: 15 }), { ...DENVER, clock: 'offset' });
    expect(series.pv!.get(Date.parse('2012-07-01T19:00:00Z'))).toBe((1200 + 1215 + 1230 + 1245) / 4);
    expect(series.commonOffsetZone).toBe('UTC-07:00');
  });

  it('reads the same stamps in standard time (MST, UTC−7) in winter', () => {
    const series = parsePvdaq(pvdaq({ from: WINTER, minutes: 15 }), DENVER);
    expect(series.pv!.get(Date.parse('2012-01-10T19:00:00Z'))).toBe((1200 + 1215 + 1230 + 1245) / 4);
    expect(series.pv!.get(Date.parse('2012-01-10T18:00:00Z'))).toBe((1100 + 1115 + 1130 + 1145) / 4);
  });

  it('moves stamps that mark the end of their interval back by one 15-minute interval', () => {
    const series = parsePvdaq(pvdaq({ from: SUMMER, minutes: 15 }), { ...DENVER, stamps: 'end' });
    // The rows stamped 12:15 to 13:00 cover 12:00–13:00 on the wall, 18:00–19:00Z.
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe((1215 + 1230 + 1245 + 1300) / 4);
  });

  it('moves stamps that mark the end of their interval back by one 1-minute interval', () => {
    const text = pvdaq({ from: SUMMER, minutes: 1, skip: midMonth });
    const series = parsePvdaq(text, { ...DENVER, stamps: 'end' });
    // The rows stamped 12:01 to 13:00: 1201 + ... + 1259 = 59 × 1230, then 1300 (not 12:00 to 12:59: 1229.5).
    expect(series.pv!.get(Date.parse('2012-06-20T18:00:00Z'))).toBeCloseTo((59 * 1230 + 1300) / 60, 9);
  });
});

describe('parsePvdaq: intervals', () => {
  const minuteOfHour = (at: number) => String(new Date(at).getUTCMinutes());

  it('averages 1-minute rows into the exact hourly mean', () => {
    const text = pvdaq({ from: SUMMER, minutes: 1, value: minuteOfHour, skip: midMonth });
    const series = parsePvdaq(text, DENVER);
    expect(series.intervalMinutes).toBe(1);
    expect(series.rows).toBe(ONE_MINUTE_HOURS * 60);
    expect(series.pv!.size).toBe(ONE_MINUTE_HOURS);
    // 0 + 1 + ... + 59 = 1770 over 60 minutes.
    for (const value of series.pv!.values()) expect(value).toBeCloseTo(29.5, 9);
  });

  it('averages 5-minute rows into the exact hourly mean', () => {
    const series = parsePvdaq(pvdaq({ from: SUMMER, minutes: 5, value: minuteOfHour }), DENVER);
    expect(series.intervalMinutes).toBe(5);
    // 0 + 5 + ... + 55 = 330 over 12 rows.
    for (const value of series.pv!.values()) expect(value).toBeCloseTo(27.5, 9);
  });

  it('keeps an hour with three quarters of its rows and leaves one with half of them out', () => {
    const noon = wall(2012, 6, 20, 12);
    const one = wall(2012, 6, 20, 13);
    const series = parsePvdaq(
      pvdaq({
        from: SUMMER,
        minutes: 1,
        value: minuteOfHour,
        skip: (at) =>
          midMonth(at) ||
          (at >= noon + 45 * MINUTE_MS && at < noon + HOUR_MS) ||
          (at >= one + 30 * MINUTE_MS && at < one + HOUR_MS),
      }),
      DENVER,
    );
    // Minutes 0 to 44 of wall 12:00: 0 + 1 + ... + 44 = 990 over 45 minutes.
    expect(series.pv!.get(Date.parse('2012-06-20T18:00:00Z'))).toBeCloseTo(22, 9);
    expect(series.pv!.has(Date.parse('2012-06-20T19:00:00Z'))).toBe(false);
    expect(series.pv!.has(Date.parse('2012-06-20T20:00:00Z'))).toBe(true);
    expect(series.pv!.size).toBe(ONE_MINUTE_HOURS - 1);
    // The 15 and 30 minutes left out, and the 14 days between the month's ends.
    expect(series.gaps).toBe(3);
  });
});

describe('parsePvdaq: values', () => {
  it('clips negative night values to 0 and counts them', () => {
    // Wall 00:00 to 04:45 read −3 W (the inverter's night draw), the rest 500 W.
    const text = pvdaq({
      from: SUMMER,
      minutes: 15,
      value: (at) => (new Date(at).getUTCHours() < 5 ? '-3' : '500'),
    });
    const series = parsePvdaq(text, DENVER);
    expect(series.clipped.pv).toBe(31 * 5 * 4);
    // Wall 02:00 MDT is 08:00Z; wall 12:00 is 18:00Z.
    expect(series.pv!.get(Date.parse('2012-07-01T08:00:00Z'))).toBe(0);
    expect(series.pv!.get(Date.parse('2012-07-01T18:00:00Z'))).toBe(500);
  });
});
