import { checkCoverage, Coverage } from './coverage';
import { DataError } from './data-error';
import { fileLines, HourlySeries, mostCommonStep, parseLines, TextLines } from './data-files';
import { fixedOffsetZone, isCalendarTime, wallTimeInstants } from './time-zones';

/**
 * The plain CSV layout: a header row, then one row per interval, comma separated (or semicolon
 * or tab separated, with decimal commas or points).
 *
 * - A timestamp column, ISO 8601 (`2025-06-01T12:00:00+02:00`, `2025-06-01 10:00Z`; seconds and
 *   fractions optional), day-first with dots (`01.06.2025 12:00`), or Unix time in seconds or
 *   milliseconds. A stamp without an offset is wall-clock time in the zone the caller names (a row
 *   in the hour the zone skips in spring is dropped and counted); with no zone named it is an
 *   error.
 * - PV power and/or household load power, W (or kW, or energy per interval in Wh or kWh, the
 *   unit named in place of the W name's `_w`); optional GHI, W/m², and air temperature, °C.
 *   Header names are matched ignoring case, spaces and punctuation (`PV Power (W)` is
 *   `pv_power_w`); an empty cell is a missing value.
 * - Any regular interval from 1 minute to 1 hour; missing rows (gaps) are fine, rows off the
 *   interval are not. A value is the mean over its interval, which starts at its stamp (or ends
 *   there, if the caller says so).
 *
 * Every column is resampled to UTC hours: the mean of the intervals overlapping the hour,
 * weighted by the overlap, kept where they cover at least three quarters of it.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** An hour's mean is kept when its samples cover at least this share of it. */
export const MIN_HOUR_COVERAGE = 0.75;
/** A step may be off a whole number of intervals by this share of one (clock jitter). */
const STEP_TOLERANCE = 0.1;

export type Role = 'time' | 'pv' | 'load' | 'ghi' | 'temperature';

/** Accepted header names per column, the first as written in the documentation. */
export const COLUMN_NAMES: Record<Role, readonly string[]> = {
  time: ['timestamp', 'time', 'datetime', 'date_time', 'measured_on'],
  pv: [
    'pv_power_w',
    'pv_power',
    'pv_w',
    'pv',
    'solar_power_w',
    'solar_power',
    'solar_w',
    'solar',
    'ac_power_w',
    'ac_power',
  ],
  load: ['load_power_w', 'load_power', 'load_w', 'load', 'consumption_w', 'consumption'],
  ghi: ['ghi_w_m2', 'ghi', 'shortwave_radiation', 'global_horizontal_irradiance'],
  temperature: [
    'air_temperature_c',
    'air_temperature',
    'temperature_c',
    'temperature',
    'temp_air',
    'temperature_2m',
  ],
};

const ROLE_LABEL: Record<Role, string> = {
  time: 'timestamp',
  pv: 'PV power',
  load: 'load power',
  ghi: 'GHI',
  temperature: 'air temperature',
};

/** Lower case, ² as 2, nothing but letters and digits: `PV Power (W)` → `pvpowerw`. */
const key = (name: string) =>
  name
    .toLowerCase()
    .replace(/²/g, '2')
    .replace(/[^a-z0-9]/g, '');

const KEYS = new Map<string, Role>(
  (Object.entries(COLUMN_NAMES) as [Role, readonly string[]][]).flatMap(([role, names]) =>
    names.map((name) => [key(name), role] as const),
  ),
);

/** The unit of a PV or load column: mean power, or energy per interval. */
export type PowerUnit = 'W' | 'kW' | 'Wh' | 'kWh';
const UNIT_WATTS: Record<PowerUnit, number> = { W: 1, kW: 1000, Wh: 1, kWh: 1000 };
const isEnergy = (unit: PowerUnit) => unit === 'Wh' || unit === 'kWh';

/**
 * PV and load columns in other units, named as the W names with the unit in place of `_w`: kW
 * (`pv_kw`, `load_power_kw`), and energy per interval, as meters count it (`pv_wh`,
 * `pv_energy_kwh`, `consumption_kwh`).
 */
const UNIT_KEYS = new Map<string, { role: 'pv' | 'load'; unit: PowerUnit }>(
  (['pv', 'load'] as const).flatMap((role) =>
    COLUMN_NAMES[role]
      .filter((name) => name.endsWith('_w'))
      .flatMap((name) => {
        const stem = name.slice(0, -2);
        const energyStem = stem.replace(/_power$/, '_energy');
        return [
          [key(`${stem}_kw`), { role, unit: 'kW' as const }],
          [key(`${energyStem}_wh`), { role, unit: 'Wh' as const }],
          [key(`${energyStem}_kwh`), { role, unit: 'kWh' as const }],
        ] as const;
      }),
  ),
);

const STAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Day, month and year between dots, then the wall time, as European inverter portals and
 * spreadsheets export it (`01.06.2025 12:00`): day first wherever it is written so. No offset.
 */
const DOTTED_STAMP = /^(\d{1,2})\.(\d{1,2})\.(\d{4})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** Unix time, as databases and home-automation exports write it: seconds (1973–2286) or milliseconds. */
const EPOCH_SECONDS = /^\d{9,10}(\.\d+)?$/;
const EPOCH_MILLISECONDS = /^\d{12,13}$/;

export interface PlainCsvOptions {
  /** IANA zone of stamps that carry no offset; null: every stamp must carry one. */
  timeZone: string | null;
  /** Whether a stamp marks the start (usual) or the end of its interval. */
  stamps: 'start' | 'end';
  /** Columns the caller names, instead of finding them by their names (another layout's file). */
  columns?: { time: string; pv: string };
  /** Every stamp is wall-clock time in `timeZone` and its offset is dropped (a fixed offset on a clock that follows summer time). */
  wallClock?: boolean;
}

export interface PlainCsvSeries {
  /** Mean power per UTC hour, W, negatives clipped to 0; null where the file has no such column. */
  pv: HourlySeries | null;
  load: HourlySeries | null;
  /** Mean GHI per UTC hour, W/m², negatives clipped to 0. */
  ghi: HourlySeries | null;
  /** Mean air temperature per UTC hour, °C. */
  temperature: HourlySeries | null;
  /** Header name found per column. */
  columns: Partial<Record<Role, string>>;
  /** Header names not read (a GHI column under a name not listed is one: the report says so). */
  unread: string[];
  /** The unit the PV and load columns were given in, before they were turned into W. */
  units: Record<'pv' | 'load', PowerUnit>;
  rows: number;
  intervalMinutes: number;
  /** Runs of missing rows, and the longest, in intervals. */
  gaps: number;
  longestGapRows: number;
  /** Rows dropped because their wall time does not exist in the zone (the hour skipped in spring). */
  skippedWallTimes: number;
  /** Rows skipped because every cell is empty (`,,`), as spreadsheets write past the end of the data. */
  emptyRows: number;
  /** Values below 0 set to 0 (night noise of PV meters, sensor offsets). */
  clipped: { pv: number; load: number; ghi: number };
  /** The offset most stamps carry, as a zone name (`UTC+02:00`); null when none carries one. */
  commonOffsetZone: string | null;
  /** Rows per offset, in minutes east of UTC. */
  offsets: Map<number, number>;
  /** How much of the span has PV (or load, without PV). */
  coverage: Coverage;
}

interface Sample {
  at: number;
  values: Record<Exclude<Role, 'time'>, number>;
}

/** Where a row is in the file, for a message about it: its line and its stamp as written there. */
interface RowPlace {
  line: number;
  stamp: string;
}

/**
 * What separates the cells: a comma, or a semicolon (or tab) where the header has no comma, as
 * spreadsheets write CSV in locales whose decimal mark is the comma; numbers then take either mark.
 */
function delimiterOf(header: string): ',' | ';' | '\t' {
  if (header.includes(',')) return ',';
  if (header.includes(';')) return ';';
  return header.includes('\t') ? '\t' : ',';
}

function cells(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
}

interface Columns {
  index: Partial<Record<Role, number>>;
  units: Record<'pv' | 'load', PowerUnit>;
}

/** The caller's own columns: a timestamp and PV power, in W unless its name says kW, Wh or kWh. */
function namedColumns(names: string[], columns: { time: string; pv: string }, source: string): Columns {
  const index = (name: string) => {
    const found = names.indexOf(name);
    if (found < 0) throw new DataError(`${source}: no column ${name} (have ${names.join(', ')})`);
    return found;
  };
  const unit = UNIT_KEYS.get(key(columns.pv))?.unit ?? 'W';
  return { index: { time: index(columns.time), pv: index(columns.pv) }, units: { pv: unit, load: 'W' } };
}

function findColumns(names: string[], source: string): Columns {
  const found: Partial<Record<Role, number>> = {};
  const units: Columns['units'] = { pv: 'W', load: 'W' };
  names.forEach((name, index) => {
    const nameKey = key(name);
    const inUnit = UNIT_KEYS.get(nameKey);
    const role = KEYS.get(nameKey) ?? inUnit?.role;
    if (!role) return;
    const previous = found[role];
    if (previous !== undefined)
      throw new DataError(
        `${source}: two ${ROLE_LABEL[role]} columns, "${names[previous]}" and "${name}"; keep one`,
      );
    found[role] = index;
    if (inUnit) units[inUnit.role] = inUnit.unit;
  });
  const accepted = (role: Role) => COLUMN_NAMES[role].join(', ');
  if (found.time === undefined)
    throw new DataError(
      `${source}: no timestamp column (have ${names.join(', ')}); name it one of ${accepted('time')}`,
    );
  if (found.pv === undefined && found.load === undefined)
    throw new DataError(
      `${source}: no PV or load column (have ${names.join(', ')}); PV power in W: ${accepted('pv')}; ` +
        `load power in W: ${accepted('load')} (or in kW, Wh or kWh per interval: pv_kw, pv_energy_kwh, ...)`,
    );
  return { index: found, units };
}

/**
 * UTC instant of a stamp, and its offset in minutes (null when it has none). A wall time the zone
 * skips when clocks go forward has no instant (null): loggers on a fixed wall-clock grid write it.
 */
function parseStamp(
  text: string,
  where: string,
  timeZone: string | null,
  after: number,
  wallClock = false,
): { at: number | null; offset: number | null } {
  if (EPOCH_SECONDS.test(text)) return { at: Math.round(Number(text) * 1000), offset: 0 };
  if (EPOCH_MILLISECONDS.test(text)) return { at: Number(text), offset: 0 };
  const dotted = DOTTED_STAMP.exec(text);
  const match = dotted
    ? [text, dotted[3], dotted[2], dotted[1], dotted[4], dotted[5], dotted[6]]
    : STAMP.exec(text);
  if (!match)
    throw new DataError(
      `${where}: "${text}" is not an ISO 8601 timestamp (like 2025-06-01T12:00:00+02:00 or 2025-06-01 10:00Z), ` +
        `a day-first dotted one (01.06.2025 12:00) nor Unix time`,
    );
  const [, year, month, dayOfMonth, hour, minute, second, fraction, zone] = match;
  const wall = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(dayOfMonth),
    Number(hour),
    Number(minute),
    Number(second ?? 0),
    fraction ? Math.round(Number(`0.${fraction}`) * 1000) : 0,
  );
  if (
    !Number.isFinite(wall) ||
    !isCalendarTime([year, month, dayOfMonth, hour, minute].map(Number)) ||
    Number(second ?? 0) > 59
  )
    throw new DataError(`${where}: "${text}" is not a valid date and time`);
  if (zone && !wallClock) {
    if (zone.toUpperCase() === 'Z') return { at: wall, offset: 0 };
    const digits = zone.replace(':', '');
    const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || 0);
    const offset = zone.startsWith('-') ? -minutes : minutes;
    return { at: wall - offset * MINUTE_MS, offset };
  }
  if (!timeZone)
    throw new DataError(
      `${where}: the timestamp "${text}" has no UTC offset; give every stamp one ` +
        `(2025-06-01T12:00:00+02:00, or Z for UTC) or pass --time-zone with the IANA zone of the clock (e.g. Europe/Berlin)`,
    );
  // In the hour repeated when clocks go back, the second pass of the same wall times follows the first.
  const instants = wallTimeInstants(wall, timeZone);
  const at = instants.find((instant) => instant > after) ?? instants[0];
  return { at: at ?? null, offset: null };
}

function parseValue(text: string | undefined, where: string, column: string, decimalComma: boolean): number {
  if (text === undefined || text === '' || /^(nan|null|na|n\/a|-)$/i.test(text)) return NaN;
  const value = Number(decimalComma && /^[+-]?\d*,\d+$/.test(text) ? text.replace(',', '.') : text);
  if (!Number.isFinite(value)) throw new DataError(`${where}: ${column} "${text}" is not a number`);
  return value;
}

/**
 * A stamp kept for a message, copied: a cell is a slice of the chunk of the file its line was read
 * from, and would keep that whole chunk in memory.
 */
const copyOf = (text: string) => Buffer.from(text).toString();

const describeStep = (ms: number) => (ms % MINUTE_MS === 0 ? `${ms / MINUTE_MS} min` : `${ms / 1000} s`);

function hourlyMeans(samples: Sample[], role: Exclude<Role, 'time'>, interval: number): HourlySeries {
  const sums = new Map<number, { weighted: number; covered: number }>();
  for (const sample of samples) {
    const value = sample.values[role];
    if (!Number.isFinite(value)) continue;
    const end = sample.at + interval;
    for (let hour = Math.floor(sample.at / HOUR_MS) * HOUR_MS; hour < end; hour += HOUR_MS) {
      const overlap = Math.min(end, hour + HOUR_MS) - Math.max(sample.at, hour);
      if (overlap <= 0) continue;
      const slot = sums.get(hour) ?? { weighted: 0, covered: 0 };
      slot.weighted += value * overlap;
      slot.covered += overlap;
      sums.set(hour, slot);
    }
  }
  const series: HourlySeries = new Map();
  for (const [hour, { weighted, covered }] of [...sums].sort((a, b) => a[0] - b[0])) {
    if (covered >= MIN_HOUR_COVERAGE * HOUR_MS - 1) series.set(hour, weighted / covered);
  }
  return series;
}

/** Reads the plain layout from a text or a file's lines; `source` names it in messages (a path). */
export function parsePlainCsv(input: TextLines, options: PlainCsvOptions, source = 'input'): PlainCsvSeries {
  return parseLines(input, (headerLine, rows) => parseRows(headerLine, rows, options, source));
}

function parseRows(
  headerLine: string,
  rows: Iterable<string>,
  options: PlainCsvOptions,
  source: string,
): PlainCsvSeries {
  const delimiter = delimiterOf(headerLine);
  const names = cells(headerLine, delimiter);
  const { index, units } = options.columns
    ? namedColumns(names, options.columns, source)
    : findColumns(names, source);
  const roles = (['pv', 'load', 'ghi', 'temperature'] as const).filter((role) => index[role] !== undefined);
  const samples: Sample[] = [];
  const offsets = new Map<number, number>();
  const clipped = { pv: 0, load: 0, ghi: 0 };
  let skippedWallTimes = 0;
  let emptyRows = 0;
  // The first row with each step from the row before: the first row off the interval is the first
  // with its step, and the interval is known only once every row is read.
  const firstOfStep = new Map<number, RowPlace>();
  let previous = -Infinity;
  let previousLine = 0;
  let number = 1;
  for (const line of rows) {
    number++;
    const row = cells(line, delimiter);
    if (row.every((cell) => cell === '')) {
      // A blank line (the file's last) is not counted; a row of empty cells is.
      if (row.length > 1) emptyRows++;
      continue;
    }
    const where = `${source} line ${number}`;
    const stamp = row[index.time!];
    if (!stamp) throw new DataError(`${where}: no timestamp`);
    const { at, offset } = parseStamp(stamp, where, options.timeZone, previous, options.wallClock);
    if (at === null) {
      skippedWallTimes++;
      continue;
    }
    if (offset !== null) offsets.set(offset, (offsets.get(offset) ?? 0) + 1);
    if (at === previous)
      throw new DataError(
        `${where}: ${stamp} is the same instant as line ${previousLine}; each interval once`,
      );
    if (at < previous)
      throw new DataError(
        `${where}: ${stamp} is earlier than line ${previousLine}; rows must be in time order`,
      );
    const values = { pv: NaN, load: NaN, ghi: NaN, temperature: NaN };
    for (const role of roles) {
      let value = parseValue(row[index[role]!], where, names[index[role]!], delimiter !== ',');
      if (role !== 'temperature' && value < 0) {
        clipped[role]++;
        value = 0;
      }
      values[role] = value;
    }
    const step = at - previous;
    if (!firstOfStep.has(step)) firstOfStep.set(step, { line: number, stamp: copyOf(stamp) });
    samples.push({ at, values });
    previous = at;
    previousLine = number;
  }
  if (samples.length < 2) throw new DataError(`${source}: ${samples.length} data rows; nothing to score`);

  const interval = mostCommonStep(samples.map((sample) => sample.at));
  if (interval < MINUTE_MS || interval > HOUR_MS)
    throw new DataError(
      `${source}: rows are ${describeStep(interval)} apart; the plain layout takes intervals from 1 min to 1 h ` +
        (interval < MINUTE_MS ? '(average to 1 min or more first)' : '(hourly or finer)'),
    );
  let gaps = 0;
  let longestGapRows = 0;
  for (let row = 1; row < samples.length; row++) {
    const step = samples[row].at - samples[row - 1].at;
    const steps = step / interval;
    const whole = Math.round(steps);
    if (Math.abs(steps - whole) > STEP_TOLERANCE) {
      const { line, stamp } = firstOfStep.get(step)!;
      throw new DataError(
        `${source} line ${line}: irregular rows: ${stamp} comes ${describeStep(step)} after the row before, ` +
          `not a whole number of the file's ${describeStep(interval)} interval ` +
          `(missing rows are fine, rows between the intervals are not)`,
      );
    }
    if (whole > 1) {
      gaps++;
      longestGapRows = Math.max(longestGapRows, whole - 1);
    }
  }
  if (options.stamps === 'end') for (const sample of samples) sample.at -= interval;
  // To mean power in W: kW × 1000; energy per interval × the intervals in an hour.
  for (const role of ['pv', 'load'] as const) {
    const unit = units[role];
    const factor = UNIT_WATTS[unit] * (isEnergy(unit) ? HOUR_MS / interval : 1);
    if (factor !== 1) for (const sample of samples) sample.values[role] *= factor;
  }

  const series = (role: Exclude<Role, 'time'>) =>
    index[role] === undefined ? null : hourlyMeans(samples, role, interval);
  const pv = series('pv');
  const load = series('load');
  const hourRule = `an hour counts when its rows cover ${100 * MIN_HOUR_COVERAGE} % of it`;
  const checked = pv ? checkCoverage(pv, 'PV', hourRule) : checkCoverage(load!, 'load', hourRule);
  if (pv && load) checkCoverage(load, 'load', hourRule);

  let commonOffset: number | null = null;
  for (const [offset, count] of offsets)
    if (commonOffset === null || count > offsets.get(commonOffset)!) commonOffset = offset;
  return {
    pv,
    load,
    ghi: series('ghi'),
    temperature: series('temperature'),
    columns: Object.fromEntries(Object.entries(index).map(([role, column]) => [role, names[column]])),
    unread: names.filter((name, column) => name !== '' && !Object.values(index).includes(column)),
    units,
    rows: samples.length,
    intervalMinutes: interval / MINUTE_MS,
    gaps,
    longestGapRows,
    clipped,
    skippedWallTimes,
    emptyRows,
    commonOffsetZone: commonOffset === null ? null : fixedOffsetZone(commonOffset),
    offsets,
    coverage: checked,
  };
}

export function readPlainCsv(path: string, options: PlainCsvOptions): PlainCsvSeries {
  return parsePlainCsv(fileLines(path), options, path);
}
