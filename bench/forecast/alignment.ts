import { solarPosition } from '../../libs/forecast/src/solar';
import type { HourlySeries } from './data-files';
import { zoneOffsetMs } from './time-zones';

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

/**
 * Mean over days of (energy-weighted centre of the hours − solar noon), hours (NaN without any
 * day), and how many days there were; hours stand at their middle.
 */
function dailyCentres(
  series: HourlySeries,
  longitude: number,
  keep: (hour: number) => boolean = () => true,
): { mean: number; days: number } {
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
  return { mean: count ? sum / count / HOUR_MS : NaN, days: count };
}

const centroidOffset = (series: HourlySeries, longitude: number, keep?: (hour: number) => boolean) =>
  dailyCentres(series, longitude, keep).mean;

/** PSM3's clear-sky GHI is a model of the instant: its daily centre should sit on solar noon. */
export function psm3ClearSkyCentroid(ghiClear: HourlySeries, longitude: number): number {
  return centroidOffset(ghiClear, longitude);
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
  const offset = centroidOffset(power, longitude);
  return Number.isFinite(offset) ? 60 * offset : null;
}

const signedMinutes = (hours: number) => {
  const minutes = Math.round(60 * hours);
  return `${minutes >= 0 ? '+' : '−'}${Math.abs(minutes)} min`;
};

/** Days on either side of a clock change whose PV centres are compared. */
const CLOCK_CHANGE_WINDOW_DAYS = 14;
/** Days with PV needed on each side for a clock change to count. */
const MIN_CLOCK_CHANGE_DAYS = 5;

/** The instants in [from, to) at which the zone's offset changes (summer time starts or ends). */
export function clockChanges(timeZone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  let previous = zoneOffsetMs(from, timeZone);
  for (let day = from + DAY_MS; day < to; day += DAY_MS) {
    const offset = zoneOffsetMs(day, timeZone);
    if (offset === previous) continue;
    // The change lies in the day before: find its hour.
    let hour = day - DAY_MS;
    while (zoneOffsetMs(hour + HOUR_MS, timeZone) === previous) hour += HOUR_MS;
    changes.push(hour + HOUR_MS);
    previous = offset;
  }
  return changes;
}

export interface ClockChangeJumps {
  /** Mean |jump| of the PV's daily centre across the clock changes counted, hours; NaN with none. */
  meanJump: number;
  line: string;
}

/**
 * How far the PV's daily centre (against solar noon) jumps across each of the zone's clock
 * changes in the data: the mean over the 14 days after the change minus the mean over the 14 days
 * before. Read with the right clock it barely moves (the season moves it by minutes over four
 * weeks); read with a clock an hour off in summer it jumps by an hour, at every change. The
 * array's azimuth, which moves the centre differently in summer and winter, cancels out.
 */
export function clockChangeJumps(
  pv: HourlySeries,
  longitude: number,
  timeZone: string,
  label: string,
): ClockChangeJumps {
  let first = Infinity;
  let last = -Infinity;
  for (const hour of pv.keys()) {
    first = Math.min(first, hour);
    last = Math.max(last, hour);
  }
  const jumps: string[] = [];
  let sum = 0;
  let count = 0;
  const window = CLOCK_CHANGE_WINDOW_DAYS * DAY_MS;
  if (pv.size > 0) {
    for (const change of clockChanges(timeZone, first, last)) {
      const before = dailyCentres(pv, longitude, (hour) => hour >= change - window && hour < change);
      const after = dailyCentres(pv, longitude, (hour) => hour >= change && hour < change + window);
      if (before.days < MIN_CLOCK_CHANGE_DAYS || after.days < MIN_CLOCK_CHANGE_DAYS) continue;
      const jump = after.mean - before.mean;
      jumps.push(`${signedMinutes(jump)} on ${new Date(change).toISOString().slice(0, 10)}`);
      sum += Math.abs(jump);
      count++;
    }
  }
  return {
    meanJump: count > 0 ? sum / count : NaN,
    line: `PV centre's jump across the clock changes ${label}: ${jumps.length > 0 ? jumps.join(', ') : 'none with PV on both sides'}`,
  };
}

export interface CestChoice {
  shift: boolean;
  /** The evidence and the choice, for the report. */
  lines: string[];
}

/**
 * Whether a household file's rows stamped in CEST move an hour earlier (`forced`, or else decided
 * from its PV read without and with the move; null without PV): the one reading of the two under
 * which the PV's daily centre does not jump an hour at the clock changes (`clockChangeJumps`).
 * Without PV on both sides of a clock change the rows are moved, as the 2017 release, whose "UTC"
 * stamps follow summer time, needs.
 */
export function chooseCestShift(
  pv: Record<'with' | 'without', HourlySeries | null>,
  longitude: number,
  timeZone: string,
  forced: boolean | null,
): CestChoice {
  const lines: string[] = [];
  const jump = { with: NaN, without: NaN };
  for (const reading of ['without', 'with'] as const) {
    const series = pv[reading];
    if (!series) continue;
    const { meanJump, line } = clockChangeJumps(series, longitude, timeZone, `${reading} the CEST shift`);
    jump[reading] = meanJump;
    lines.push(line);
  }
  if (forced !== null) {
    lines.push(
      `CEST rows ${forced ? 'moved an hour earlier' : 'taken as they are'} (--cest-shift ${forced ? 'on' : 'off'})`,
    );
    return { shift: forced, lines };
  }
  if (!Number.isFinite(jump.with) || !Number.isFinite(jump.without)) {
    lines.push(
      'CEST rows moved an hour earlier, as the 2017 release needs: no PV on both sides of a clock change ' +
        'to check the stamps against (--cest-shift off keeps them)',
    );
    return { shift: true, lines };
  }
  const shift = jump.with < jump.without;
  lines.push(
    shift
      ? 'CEST rows moved an hour earlier: then the PV does not jump at the clock changes (--cest-shift off keeps them)'
      : 'utc_timestamp taken as UTC: then the PV does not jump at the clock changes (--cest-shift on moves CEST rows)',
  );
  return { shift, lines };
}

export type PvdaqClock = 'local' | 'offset';

/**
 * How a PVDAQ file's stamps are read, decided from its PV: as wall time in the site's zone with
 * the offset dropped (`local`; system 50's stamps carry −07:00 all year while its clock follows
 * summer time), or at the offset they carry (`offset`), whichever keeps the PV's daily centre from
 * jumping an hour at the zone's clock changes (`clockChangeJumps`). Without PV on both sides of a
 * clock change they are read as local time, as system 50 needs.
 */
export function choosePvdaqClock(
  readings: Record<PvdaqClock, HourlySeries>,
  timeZone: string,
  longitude: number,
): { clock: PvdaqClock; lines: string[] } {
  const offset = clockChangeJumps(readings.offset, longitude, timeZone, "at the stamps' offsets");
  const local = clockChangeJumps(readings.local, longitude, timeZone, `as wall time in ${timeZone}`);
  const lines = [offset.line, local.line];
  if (!Number.isFinite(local.meanJump) || !Number.isFinite(offset.meanJump)) {
    lines.push(
      `stamps read as wall time in ${timeZone}: no PV on both sides of a clock change to check them against ` +
        '(--pvdaq-clock offset keeps their offsets)',
    );
    return { clock: 'local', lines };
  }
  const clock: PvdaqClock = local.meanJump <= offset.meanJump ? 'local' : 'offset';
  lines.push(
    clock === 'local'
      ? `stamps read as wall time in ${timeZone}: then the PV does not jump at the clock changes (--pvdaq-clock offset keeps their offsets)`
      : `stamps read at their offsets: then the PV does not jump at the clock changes (--pvdaq-clock local reads wall time in ${timeZone})`,
  );
  return { clock, lines };
}
