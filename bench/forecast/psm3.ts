import { DataError } from './data-error';
import {
  column,
  fileLines,
  header,
  HourlySeries,
  mostCommonStep,
  numberOrNull,
  parseLines,
  TextLines,
} from './data-files';

/**
 * NSRDB PSM3 weather as pvlib writes it (`pvlib.iotools.get_psm3`, saved by pandas: the first
 * column is the stamp with its real fixed offset, then `ghi` (W/m²), `temp_air` (°C) and,
 * optionally, `ghi_clear`, found by name), or as NSRDB serves it (`GHI`, `Temperature`,
 * `Clearsky GHI`; below). The values are (near-)instantaneous at their stamp:
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

interface Psm3Columns {
  ghi: number;
  temperature: number;
  /** −1 without a clear-sky column. */
  clear: number;
  /** A row's stamp as written, and its UTC instant, ms (NaN when it cannot be read). */
  stamp: (cells: string[]) => string;
  instant: (cells: string[]) => number;
}

/**
 * The two ways PSM3 files come: as pvlib writes them (a header row, the stamp with its offset
 * first), or as NSRDB serves them (a row of metadata names, one of their values, then the header
 * with `Year,Month,Day,Hour,Minute` in the fixed offset the metadata's `Time Zone` gives, in hours).
 */
function psm3Columns(firstLine: string, rest: Iterable<string>, source: string): Psm3Columns {
  const first = header(firstLine);
  if (first[0] === 'Source' && first.includes('Time Zone')) {
    const lines = rest[Symbol.iterator]();
    const nextLine = () => {
      for (let next = lines.next(); !next.done; next = lines.next()) if (next.value !== '') return next.value;
      return '';
    };
    const zoneHours = numberOrNull(header(nextLine())[first.indexOf('Time Zone')]);
    if (zoneHours === null) throw new DataError(`${source}: no Time Zone in the metadata row`);
    const names = header(nextLine());
    const [year, month, day, hour, minute] = ['Year', 'Month', 'Day', 'Hour', 'Minute'].map((name) =>
      column(names, name, source),
    );
    return {
      ghi: column(names, 'GHI', source),
      temperature: column(names, 'Temperature', source),
      clear: names.indexOf('Clearsky GHI'),
      stamp: (cells) => [year, month, day, hour, minute].map((index) => cells[index]).join(' '),
      instant: (cells) =>
        Date.UTC(+cells[year], +cells[month] - 1, +cells[day], +cells[hour], +cells[minute]) -
        zoneHours * HOUR_MS,
    };
  }
  return {
    ghi: column(first, 'ghi', source),
    temperature: column(first, 'temp_air', source),
    clear: first.indexOf('ghi_clear'),
    stamp: (cells) => cells[0],
    instant: (cells) => Date.parse(`${cells[0].slice(0, 10)}T${cells[0].slice(11)}`),
  };
}

export function parsePsm3(input: TextLines, source = 'input'): Psm3Series {
  return parseLines(input, (first, rest) => parseSamples(first, rest, source));
}

function parseSamples(first: string, rest: Iterable<string>, source: string): Psm3Series {
  const layout = psm3Columns(first, rest, source);
  const samples: Sample[] = [];
  let rows = 0;
  for (const row of rest) {
    if (row === '') continue;
    rows++;
    const cells = row.split(',');
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
