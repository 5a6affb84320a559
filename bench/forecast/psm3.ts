import { DataError } from './data-error';
import {
  fileLines,
  header,
  HourlySeries,
  mostCommonStep,
  numberOrNull,
  parseLines,
  TextLines,
} from './data-files';
import { isCalendarTime } from './time-zones';

/**
 * NSRDB PSM3 weather as pvlib writes it (`pvlib.iotools.get_psm3`, saved by pandas: the first
 * column is the stamp with its real fixed offset, then `ghi` (W/m²), `temp_air` (°C) and,
 * optionally, `ghi_clear`, found by name), or as NSRDB serves it (below). Older pvlib kept
 * NSRDB's names (`GHI`, `Temperature`, `Clearsky GHI`): either names are read in either layout,
 * ignoring case. The values are (near-)instantaneous at their stamp:
 * every 30 or 60 minutes as NSRDB serves them, or on a finer grid interpolated from those.
 *
 * The mean over a UTC hour is the integral over it of the straight lines between consecutive
 * samples (for half-hourly samples: the trapezoid of the :00, :30 and :00 values; for hourly ones
 * at :30, 1/8, 3/4 and 1/8 of the three nearest). An hour is kept when samples at most an hour
 * apart span it.
 */

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** Samples further apart than this are a gap, not a line to integrate. */
const MAX_SAMPLE_GAP_MS = HOUR_MS;

export interface Psm3Series {
  /** Hour-mean GHI over each UTC hour, W/m². */
  ghi: HourlySeries;
  /** Hour-mean PSM3 clear-sky GHI, W/m², empty without that column (used only to check the time alignment). */
  ghiClear: HourlySeries;
  /** Hour-mean air temperature, °C. */
  temperature: HourlySeries;
  rows: number;
  /** The most common step between samples, minutes. */
  intervalMinutes: number;
}

interface Sample {
  at: number;
  /** GHI, clear-sky GHI (NaN without the column), temperature. */
  values: [number, number, number];
}

/** The names a value's column goes by, pvlib's then NSRDB's, matched ignoring case in either layout. */
const COLUMN_NAMES = {
  ghi: ['ghi'],
  temperature: ['temp_air', 'Temperature'],
  clear: ['ghi_clear', 'Clearsky GHI'],
};

/** Metadata that must be the same in a second NSRDB header: the same site, its stamps in the same offset. */
const SITE_FIELDS = ['Location ID', 'Latitude', 'Longitude', 'Time Zone'];

/** The index of the first of `accepted` among `names`, ignoring case; −1 without any. */
function findColumn(names: string[], accepted: string[]): number {
  const lowered = names.map((name) => name.toLowerCase());
  for (const name of accepted) {
    const index = lowered.indexOf(name.toLowerCase());
    if (index >= 0) return index;
  }
  return -1;
}

function requiredColumn(names: string[], accepted: string[], source: string): number {
  const index = findColumn(names, accepted);
  if (index < 0)
    throw new DataError(`${source}: no column ${accepted.join(' or ')} (have ${names.join(', ')})`);
  return index;
}

/** The lines after the first, blank ones passed over, and the place in the file of the last one given. */
interface NumberedLines {
  next(): string | null;
  number: number;
}

function numberedLines(rest: Iterable<string>): NumberedLines {
  const lines = rest[Symbol.iterator]();
  const numbered: NumberedLines = {
    number: 1,
    next() {
      for (let line = lines.next(); !line.done; line = lines.next()) {
        numbered.number++;
        if (line.value !== '') return line.value;
      }
      return null;
    },
  };
  return numbered;
}

interface Psm3Columns {
  ghi: number;
  temperature: number;
  /** −1 without a clear-sky column. */
  clear: number;
  /** A row's stamp as written. */
  stamp: (cells: string[]) => string;
  /** The stamp's year, month, day, hour and minute as written, null when they cannot be read. */
  calendar: (cells: string[]) => number[] | null;
  /** The stamp's UTC instant, ms (NaN when it cannot be read). */
  instant: (cells: string[]) => number;
  /**
   * Whether a row starts a second header (yearly files joined), passed over with the rows after it;
   * one whose site, Time Zone or columns are not the first's is refused.
   */
  repeatedHeader: (row: string, lines: NumberedLines) => boolean;
}

/**
 * The two ways PSM3 files come: as pvlib writes them (a header row, the stamp with its offset
 * first), or as NSRDB serves them (a row of metadata names, one of their values, then the header
 * with `Year,Month,Day,Hour,Minute` in the fixed offset the metadata's `Time Zone` gives, in hours).
 * NSRDB serves a year a file; joined, each year brings its own three rows again.
 */
function psm3Columns(firstLine: string, lines: NumberedLines, source: string): Psm3Columns {
  const first = header(firstLine);
  if (first[0] === 'Source' && first.includes('Time Zone')) {
    const metadata = (names: string[], valuesLine: string | null) => {
      const values = header(valuesLine ?? '');
      return new Map(names.map((name, index) => [name, values[index] ?? '']));
    };
    const site = metadata(first, lines.next());
    const zoneHours = numberOrNull(site.get('Time Zone'));
    if (zoneHours === null) throw new DataError(`${source}: no Time Zone in the metadata row`);
    const names = header(lines.next() ?? '');
    const namesLine = lines.number;
    const [year, month, day, hour, minute] = ['Year', 'Month', 'Day', 'Hour', 'Minute'].map((name) =>
      requiredColumn(names, [name], source),
    );
    const calendar = (cells: string[]) => {
      const fields = [year, month, day, hour, minute].map((index) => numberOrNull(cells[index]));
      return fields.every((field) => field !== null) ? fields : null;
    };
    return {
      ghi: requiredColumn(names, COLUMN_NAMES.ghi, source),
      temperature: requiredColumn(names, COLUMN_NAMES.temperature, source),
      clear: findColumn(names, COLUMN_NAMES.clear),
      stamp: (cells) => [year, month, day, hour, minute].map((index) => cells[index]).join(' '),
      calendar,
      instant: (cells) => {
        const fields = calendar(cells);
        if (fields === null) return NaN;
        const [y, mo, d, h, mi] = fields;
        return Date.UTC(y, mo - 1, d, h, mi) - zoneHours * HOUR_MS;
      },
      repeatedHeader: (row, rest) => {
        const secondNames = header(row);
        if (secondNames[0] !== 'Source') return false;
        const second = metadata(secondNames, rest.next());
        const other = SITE_FIELDS.find((field) => second.get(field) !== site.get(field));
        if (other !== undefined)
          throw new DataError(
            `${source} line ${rest.number}: a second NSRDB header (files joined) for another site: ` +
              `its ${other} is ${second.get(other) || 'missing'}, the first's ${site.get(other) || 'missing'}; ` +
              `join the years of one site only`,
          );
        const columns = rest.next();
        if (columns === null || header(columns).join(',') !== names.join(','))
          throw new DataError(
            `${source} line ${rest.number}: a second NSRDB header (files joined) whose columns are not ` +
              `those of line ${namesLine}; join files with the same columns`,
          );
        return true;
      },
    };
  }
  const stampFields = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})/;
  return {
    ghi: requiredColumn(first, COLUMN_NAMES.ghi, source),
    temperature: requiredColumn(first, COLUMN_NAMES.temperature, source),
    clear: findColumn(first, COLUMN_NAMES.clear),
    stamp: (cells) => cells[0],
    calendar: (cells) =>
      stampFields
        .exec(cells[0] ?? '')
        ?.slice(1)
        .map(Number) ?? null,
    instant: (cells) => Date.parse(`${cells[0].slice(0, 10)}T${cells[0].slice(11)}`),
    repeatedHeader: () => false,
  };
}

export function parsePsm3(input: TextLines, source = 'input'): Psm3Series {
  return parseLines(input, (first, rest) => parseSamples(first, rest, source));
}

function parseSamples(first: string, rest: Iterable<string>, source: string): Psm3Series {
  const lines = numberedLines(rest);
  const layout = psm3Columns(first, lines, source);
  const samples: Sample[] = [];
  let rows = 0;
  for (let row = lines.next(); row !== null; row = lines.next()) {
    if (layout.repeatedHeader(row, lines)) continue;
    rows++;
    const cells = row.split(',');
    const fields = layout.calendar(cells);
    if (fields !== null && !isCalendarTime(fields))
      throw new DataError(
        `${source} line ${lines.number}: "${layout.stamp(cells)}" is not a valid date and time`,
      );
    const at = layout.instant(cells);
    if (!Number.isFinite(at)) throw new DataError(`${source}: bad time ${layout.stamp(cells)}`);
    if (samples.length > 0 && at <= samples[samples.length - 1].at)
      throw new DataError(
        `${source}: ${layout.stamp(cells)} is not after the row before; rows must be in time order, each once`,
      );
    const ghi = numberOrNull(cells[layout.ghi]);
    const temperature = numberOrNull(cells[layout.temperature]);
    if (ghi === null || temperature === null) continue;
    const clear = layout.clear < 0 ? null : numberOrNull(cells[layout.clear]);
    samples.push({ at, values: [ghi, clear ?? NaN, temperature] });
  }

  const integrals = new Map<number, { sums: [number, number, number]; covered: number }>();
  for (let index = 1; index < samples.length; index++) {
    const a = samples[index - 1];
    const b = samples[index];
    const span = b.at - a.at;
    if (span > MAX_SAMPLE_GAP_MS) continue;
    const valueAt = (k: number, at: number) =>
      a.values[k] + ((b.values[k] - a.values[k]) * (at - a.at)) / span;
    for (let hour = Math.floor(a.at / HOUR_MS) * HOUR_MS; hour < b.at; hour += HOUR_MS) {
      const from = Math.max(a.at, hour);
      const to = Math.min(b.at, hour + HOUR_MS);
      if (to <= from) continue;
      const slot = integrals.get(hour) ?? { sums: [0, 0, 0], covered: 0 };
      for (let k = 0; k < 3; k++) slot.sums[k] += ((valueAt(k, from) + valueAt(k, to)) / 2) * (to - from);
      slot.covered += to - from;
      integrals.set(hour, slot);
    }
  }
  const ghi: HourlySeries = new Map();
  const ghiClear: HourlySeries = new Map();
  const temperature: HourlySeries = new Map();
  for (const [hour, { sums, covered }] of [...integrals].sort((x, y) => x[0] - y[0])) {
    if (covered < HOUR_MS - 1) continue;
    ghi.set(hour, Math.max(0, sums[0] / HOUR_MS));
    if (Number.isFinite(sums[1])) ghiClear.set(hour, Math.max(0, sums[1] / HOUR_MS));
    temperature.set(hour, sums[2] / HOUR_MS);
  }
  return {
    ghi,
    ghiClear,
    temperature,
    rows,
    intervalMinutes: mostCommonStep(samples.map((sample) => sample.at)) / MINUTE_MS,
  };
}

export function readPsm3(path: string): Psm3Series {
  return parsePsm3(fileLines(path), path);
}
