import { solarPosition } from '../../libs/forecast/src/solar';
import type { HourlySeries } from './data-files';
import { HouseholdFile, householdSeries } from './opsd';

/**
 * Time-alignment checks, printed by the benchmark so anyone can see what a file's clock really
 * is: where the energy-weighted centre of each day falls against solar noon, and how well PV
 * correlates with GHI when either is moved by an hour. A clock an hour off scores as a bad model.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Solar noon (ms, UTC) of the local solar day starting at `dayStart`. */
function solarNoon(dayStart: number, longitude: number): number {
  const equationOfTime = solarPosition(new Date(dayStart + 12 * HOUR_MS), 0, longitude).equationOfTime;
  return dayStart + (12 - equationOfTime / 60) * HOUR_MS;
}

/** Mean over days of (energy-weighted centre of the hours − solar noon), hours; hours stand at their middle. */
function centroidOffset(series: HourlySeries, longitude: number, keep: (hour: number) => boolean): number {
  const shift = (longitude / 15) * HOUR_MS;
  const days = new Map<number, [number, number]>();
  for (const [hour, value] of series) {
    if (!keep(hour) || !(value > 0)) continue;
    const dayStart = Math.floor((hour + shift) / DAY_MS) * DAY_MS - shift;
    const sums = days.get(dayStart) ?? [0, 0];
    sums[0] += (hour + HOUR_MS / 2) * value;
    sums[1] += value;
    days.set(dayStart, sums);
  }
  let sum = 0;
  let count = 0;
  for (const [dayStart, [weighted, total]] of days) {
    sum += weighted / total - solarNoon(dayStart, longitude);
    count++;
  }
  return count ? sum / count / HOUR_MS : NaN;
}

/** PSM3's clear-sky GHI is a model of the instant: its daily centre should sit on solar noon. */
export function psm3ClearSkyCentroid(ghiClear: HourlySeries, longitude: number): number {
  return centroidOffset(ghiClear, longitude, () => true);
}

const month = (hour: number) => new Date(hour).getUTCMonth() + 1;
const summer = (hour: number) => month(hour) >= 6 && month(hour) <= 8;
const winter = (hour: number) => month(hour) === 12 || month(hour) <= 2;

function correlation(pairs: [number, number][]): number {
  const n = pairs.length;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const [x, y] of pairs) {
    sx += x;
    sy += y;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

/**
 * Hourly PV against GHI, in summer and winter (of the northern hemisphere), with the GHI moved by
 * −1, 0 and +1 h: the best correlation should be at 0 in both seasons once the clocks agree. A
 * season without enough hours of both is left out.
 */
export function pvWeatherCorrelation(power: HourlySeries, ghi: HourlySeries): string[] {
  const lines: string[] = [];
  for (const [name, keep] of [
    ['Jun–Aug', summer],
    ['Dec–Feb', winter],
  ] as const) {
    const cells: string[] = [];
    for (const shift of [-1, 0, 1]) {
      const pairs: [number, number][] = [];
      for (const [hour, value] of power) {
        const irradiance = ghi.get(hour + shift * HOUR_MS);
        if (keep(hour) && irradiance !== undefined) pairs.push([value, irradiance]);
      }
      const r = pairs.length >= 48 ? correlation(pairs) : NaN;
      if (!Number.isFinite(r)) break;
      cells.push(`${shift >= 0 ? '+' : ''}${shift} h: r = ${r.toFixed(3)}`);
    }
    if (cells.length === 3) lines.push(`PV vs GHI, ${name}, GHI moved by ${cells.join(', ')}`);
  }
  return lines;
}

/** Mean over days of the PV's energy-weighted centre − solar noon, minutes; null without any day. */
export function pvCentreOffsetMinutes(power: HourlySeries, longitude: number): number | null {
  const offset = centroidOffset(power, longitude, () => true);
  return Number.isFinite(offset) ? 60 * offset : null;
}

const minutes = (hours: number) => (Number.isFinite(hours) ? `${(60 * hours).toFixed(0)} min` : '—');

export interface CestChoice {
  shift: boolean;
  /** The evidence and the choice, for the report. */
  lines: string[];
}

/**
 * Whether a household file's rows stamped in CEST move an hour earlier (`forced`, or else decided
 * from its PV): the PV's daily centre against solar noon in May–Aug and in Nov–Feb, with and
 * without the move. With the right clock the two seasons agree (the array's azimuth moves both
 * alike); with "UTC" stamps that follow summer time, summer sits an hour later. Without PV in
 * both seasons the stamps are taken as UTC, as the layout documents them.
 */
export function chooseCestShift(file: HouseholdFile, longitude: number, forced: boolean | null): CestChoice {
  const lines: string[] = [];
  const seasonGap = { with: NaN, without: NaN };
  if (file.meters.pv.length > 0)
    for (const shift of [false, true]) {
      const { gap, line } = seasonalCentres(
        householdSeries(file, shift).pv!,
        longitude,
        `${shift ? 'with' : 'without'} the CEST shift`,
      );
      seasonGap[shift ? 'with' : 'without'] = gap;
      lines.push(line);
    }
  if (forced !== null) {
    lines.push(
      `CEST rows ${forced ? 'moved an hour earlier' : 'taken as they are'} (--cest-shift ${forced ? 'on' : 'off'})`,
    );
    return { shift: forced, lines };
  }
  if (!Number.isFinite(seasonGap.with) || !Number.isFinite(seasonGap.without)) {
    lines.push(
      'utc_timestamp taken as UTC: no PV in both summer and winter to check it against (--cest-shift on to move CEST rows)',
    );
    return { shift: false, lines };
  }
  const shift = seasonGap.with < seasonGap.without;
  lines.push(
    shift
      ? 'CEST rows moved an hour earlier: only then do summer and winter agree (--cest-shift off to keep them)'
      : 'utc_timestamp taken as UTC: summer and winter agree without a shift (--cest-shift on to move CEST rows)',
  );
  return { shift, lines };
}

/**
 * How far apart the PV's daily centres (against solar noon) sit in May–Aug and in Nov–Feb, hours
 * (NaN without PV in both), and a line saying where each is. Read with the right clock the two
 * agree, whatever the array's azimuth; a clock that follows summer time, read as a fixed one, puts
 * the summer centres an hour late.
 */
export function seasonalCentres(
  pv: HourlySeries,
  longitude: number,
  label: string,
): { gap: number; line: string } {
  const summer = centroidOffset(pv, longitude, (hour) => month(hour) >= 5 && month(hour) <= 8);
  const winter = centroidOffset(pv, longitude, (hour) => month(hour) >= 11 || month(hour) <= 2);
  return {
    gap: Math.abs(summer - winter),
    line: `PV centre − solar noon ${label}: May–Aug ${minutes(summer)}, Nov–Feb ${minutes(winter)}`,
  };
}

export type PvdaqClock = 'local' | 'offset';

/**
 * How a PVDAQ file's stamps are read, decided from its PV: as wall time in the site's zone with
 * the offset dropped (`local`; system 50's stamps carry −07:00 all year while its clock follows
 * summer time), or at the offset they carry (`offset`), whichever makes the PV's summer and winter
 * days centre alike. Without PV in both seasons they are read as local time, as the layout
 * documents them.
 */
export function choosePvdaqClock(
  readings: Record<PvdaqClock, HourlySeries>,
  timeZone: string,
  longitude: number,
): { clock: PvdaqClock; lines: string[] } {
  const local = seasonalCentres(readings.local, longitude, `read as wall time in ${timeZone}`);
  const offset = seasonalCentres(readings.offset, longitude, "at the stamps' offsets");
  const lines = [offset.line, local.line];
  if (!Number.isFinite(local.gap) || !Number.isFinite(offset.gap)) {
    lines.push(
      `stamps read as wall time in ${timeZone}: no PV in both summer and winter to check the clock against ` +
        '(--pvdaq-clock offset keeps their offsets)',
    );
    return { clock: 'local', lines };
  }
  const clock: PvdaqClock = local.gap <= offset.gap ? 'local' : 'offset';
  lines.push(
    clock === 'local'
      ? `stamps read as wall time in ${timeZone}: then summer and winter agree (--pvdaq-clock offset keeps their offsets)`
      : `stamps read at their offsets: then summer and winter agree (--pvdaq-clock local reads wall time in ${timeZone})`,
  );
  return { clock, lines };
}
