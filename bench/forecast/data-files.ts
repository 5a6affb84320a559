import { readFileSync } from 'node:fs';
import { DataError } from './data-error';
import { wallTimeToUtc } from './time-zones';

/**
 * Readers for three public layouts (NREL PVDAQ power, NSRDB PSM3 weather, OPSD household meters),
 * each turned into UTC hourly series keyed by the start of the hour (ms). Each reader corrects
 * what is known to be off in its layout's clock, as its comment says, and nothing else.
 */

const HOUR_MS = 3_600_000;
const HALF_HOUR_MS = 30 * 60_000;

/** Hour start (ms) → value. */
export type HourlySeries = Map<number, number>;

function lines(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return text.split(/\r?\n/).filter((line) => line.length > 0);
}

function header(line: string): string[] {
  return line.split(',').map((name) => name.trim());
}

function column(names: string[], wanted: string, path: string): number {
  const index = names.indexOf(wanted);
  if (index < 0) throw new DataError(`${path}: no column ${wanted} (have ${names.join(', ')})`);
  return index;
}

function numberOrNull(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

export interface PvdaqSeries {
  /** Mean AC power per UTC hour, W, negatives clipped to 0; hours with fewer than 3 of 4 quarters left out. */
  power: HourlySeries;
  quarters: number;
  emptyQuarters: number;
  negativeQuarters: number;
}

const QUARTER_MS = 15 * 60_000;

/**
 * NREL PVDAQ `measured_on,<power>`: every stamp says `-07:00`, but the clock is local time with
 * DST, so the offset is dropped and the wall time localised in `timeZone`. Values are 15-minute
 * means in W, labelled by the start of their quarter (pandas' default) or, with `stamps: 'end'`,
 * by its end (system 50's: see bench/FORECAST.md).
 */
export function readPvdaq(
  path: string,
  timeZone: string,
  powerColumn = 'ac_power_2',
  stamps: 'start' | 'end' = 'start',
): PvdaqSeries {
  const [first, ...rows] = lines(path);
  const names = header(first);
  const timeIndex = column(names, 'measured_on', path);
  const powerIndex = column(names, powerColumn, path);
  const sums = new Map<number, { sum: number; count: number }>();
  let emptyQuarters = 0;
  let negativeQuarters = 0;
  for (const row of rows) {
    const cells = row.split(',');
    const stamp = cells[timeIndex];
    const wall = Date.parse(`${stamp.slice(0, 10)}T${stamp.slice(11, 19)}Z`);
    if (!Number.isFinite(wall)) throw new DataError(`${path}: bad time ${stamp}`);
    const value = numberOrNull(cells[powerIndex]);
    if (value === null) {
      emptyQuarters++;
      continue;
    }
    if (value < 0) negativeQuarters++;
    const utc = wallTimeToUtc(wall, timeZone) - (stamps === 'end' ? QUARTER_MS : 0);
    const hour = Math.floor(utc / HOUR_MS) * HOUR_MS;
    const slot = sums.get(hour) ?? { sum: 0, count: 0 };
    slot.sum += Math.max(0, value);
    slot.count++;
    sums.set(hour, slot);
  }
  const power: HourlySeries = new Map();
  for (const [hour, { sum, count }] of sums) if (count >= 3) power.set(hour, sum / count);
  return { power, quarters: rows.length, emptyQuarters, negativeQuarters };
}

export interface Psm3Series {
  /** Hour-mean GHI over each UTC hour, W/m². */
  ghi: HourlySeries;
  /** Hour-mean PSM3 clear-sky GHI, W/m² (used only to check the time alignment). */
  ghiClear: HourlySeries;
  /** Hour-mean air temperature, °C. */
  temperature: HourlySeries;
  rows: number;
}

/**
 * NSRDB PSM3 via pvlib: the first, unnamed column is a real fixed UTC−7 stamp; the values are
 * (near-)instantaneous at the stamp every 30 minutes. The mean over the UTC hour [h, h+1) is the
 * trapezoid of the samples at h, h+30 min and h+60 min, shifted by `shiftMinutes` if the samples
 * turn out to stand for another instant than their label.
 */
export function readPsm3(path: string, shiftMinutes = 0): Psm3Series {
  const [first, ...rows] = lines(path);
  const names = header(first);
  const ghiIndex = column(names, 'ghi', path);
  const clearIndex = column(names, 'ghi_clear', path);
  const temperatureIndex = column(names, 'temp_air', path);
  const samples = new Map<number, [number, number, number]>();
  for (const row of rows) {
    const cells = row.split(',');
    const stamp = cells[0];
    const utc = Date.parse(`${stamp.slice(0, 10)}T${stamp.slice(11)}`);
    if (!Number.isFinite(utc)) throw new DataError(`${path}: bad time ${stamp}`);
    const ghi = numberOrNull(cells[ghiIndex]);
    const clear = numberOrNull(cells[clearIndex]);
    const temperature = numberOrNull(cells[temperatureIndex]);
    if (ghi === null || clear === null || temperature === null) continue;
    samples.set(utc + shiftMinutes * 60_000, [ghi, clear, temperature]);
  }
  const ghi: HourlySeries = new Map();
  const ghiClear: HourlySeries = new Map();
  const temperature: HourlySeries = new Map();
  const starts = [...samples.keys()].filter((at) => at % HOUR_MS === 0);
  for (const hour of starts) {
    const a = samples.get(hour);
    const b = samples.get(hour + HALF_HOUR_MS);
    const c = samples.get(hour + HOUR_MS);
    if (!a || !b || !c) continue;
    const mean = (index: number) => 0.25 * a[index] + 0.5 * b[index] + 0.25 * c[index];
    ghi.set(hour, Math.max(0, mean(0)));
    ghiClear.set(hour, Math.max(0, mean(1)));
    temperature.set(hour, mean(2));
  }
  return { ghi, ghiClear, temperature, rows: rows.length };
}

export interface HouseholdSeries {
  /** Mean PV power per UTC hour, W. */
  pv: HourlySeries;
  /** Mean household load per UTC hour, W: Δimport − Δexport + Δpv, negatives (meter timing) clipped to 0. */
  load: HourlySeries;
  rows: number;
  /** Rows whose stamp was moved back an hour (CEST). */
  shiftedRows: number;
  negativeLoadHours: number;
}

export interface HouseholdOptions {
  /** Column prefix, e.g. `DE_KN_residential4`. */
  prefix: string;
  /**
   * Subtract an hour from `utc_timestamp` while `cet_cest_timestamp` says +0200: in the 2017
   * release the "UTC" stamps follow the clock's summer time (the PV's daily centre moves an hour
   * later on the day CEST starts and back when it ends).
   */
  cestShift: boolean;
  /**
   * Which hour a meter difference belongs to: `'before'` assigns reading(t) − reading(t−1 h) to
   * [t−1 h, t) (a meter read at the end of its hour), `'after'` to [t, t+1 h).
   */
  differenceHour: 'before' | 'after';
}

/**
 * OPSD household data: cumulative kWh meters on an hourly grid. Energy per hour is the difference
 * of consecutive readings; an hour's kWh is its mean power in kW. Where the corrected stamps
 * collide or skip an hour (the DST days, at night), the difference is spread over the hours it
 * spans, or carried into the next one.
 */
export function readOpsdHousehold(path: string, options: HouseholdOptions): HouseholdSeries {
  const [first, ...rows] = lines(path);
  const names = header(first);
  const utcIndex = column(names, 'utc_timestamp', path);
  const localIndex = column(names, 'cet_cest_timestamp', path);
  const importIndex = column(names, `${options.prefix}_grid_import`, path);
  const exportIndex = column(names, `${options.prefix}_grid_export`, path);
  const pvIndex = column(names, `${options.prefix}_pv`, path);
  const readings: { at: number; pv: number; import: number; export: number }[] = [];
  let shiftedRows = 0;
  for (const row of rows) {
    const cells = row.split(',');
    let at = Date.parse(cells[utcIndex]);
    if (!Number.isFinite(at)) throw new DataError(`${path}: bad time ${cells[utcIndex]}`);
    if (options.cestShift && cells[localIndex].endsWith('+0200')) {
      at -= HOUR_MS;
      shiftedRows++;
    }
    const pv = numberOrNull(cells[pvIndex]);
    const imported = numberOrNull(cells[importIndex]);
    const exported = numberOrNull(cells[exportIndex]);
    if (pv === null || imported === null || exported === null) continue;
    readings.push({ at, pv, import: imported, export: exported });
  }
  const pv: HourlySeries = new Map();
  const load: HourlySeries = new Map();
  let negativeLoadHours = 0;
  let carried: { pv: number; load: number } | null = null;
  for (let index = 1; index < readings.length; index++) {
    const previous = readings[index - 1];
    const current = readings[index];
    const span = Math.round((current.at - previous.at) / HOUR_MS);
    const pvKwh: number = current.pv - previous.pv + (carried?.pv ?? 0);
    const loadKwh: number =
      current.import -
      previous.import -
      (current.export - previous.export) +
      (current.pv - previous.pv) +
      (carried?.load ?? 0);
    carried = null;
    if (span <= 0) {
      carried = { pv: pvKwh, load: loadKwh };
      continue;
    }
    // A gap in the file longer than the DST hour is a gap, not something to spread.
    if (span > 2) continue;
    const start = options.differenceHour === 'before' ? previous.at : current.at;
    for (let step = 0; step < span; step++) {
      const hour = start + step * HOUR_MS;
      pv.set(hour, Math.max(0, (pvKwh / span) * 1000));
      if (loadKwh < 0) negativeLoadHours++;
      load.set(hour, Math.max(0, (loadKwh / span) * 1000));
    }
  }
  return { pv, load, rows: rows.length, shiftedRows, negativeLoadHours };
}
