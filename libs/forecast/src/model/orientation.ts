import { decompose, HOUR_MS, Orientation, planeOfArray } from './pv-physics';
import { Timeline } from './timeline';

// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { abs, floor, max } = Math;
const isFiniteNumber = Number.isFinite;

/**
 * The array's effective orientation, inferred from its history (unless its owner gave one): the tilt and
 * azimuth whose clear-day irradiance on the plane best matches the shape of the measured power on
 * clear days. Clear days are found in the power itself: complete, single-peaked, and producing at
 * least 85 % of the best ratio to clear-sky irradiance within ±15 days. On those days the plane's
 * irradiance comes from the weather's GHI where the history has it for nearly every hour, else
 * from the Haurwitz clear sky. A coarse grid (tilt 0–60° by 5°, azimuth ±90° around the equator by
 * 10°) is refined by 1° and 2° around its best point; the score is the squared error left after
 * the best single scale factor, on hours with the sun above 5° and below the inverter's limit.
 * "Effective" because shading, horizon and the simple sky model are folded into the answer.
 */

export interface OrientationFit {
  orientation: Orientation;
  /**
   * `installed`: as the owner gave it; `weather`/`clear-sky`: inferred with that irradiance;
   * `default`: too few clear days, assumed.
   */
  source: 'installed' | 'weather' | 'clear-sky' | 'default';
  clearDays: number;
  /** The clear-day hours used (empty for `default`). */
  clearHours: number[];
}

const DAY_MS = 86_400_000;
const MIN_CLEAR_DAYS = 5;
const TILT_RANGE = [0, 60] as const;

/** Equator-facing at 30°: what an installer most often does when nothing is known. */
export function defaultOrientation(latitude: number): Orientation {
  return { tilt: 30, azimuth: latitude >= 0 ? 180 : 0 };
}

/** Local solar day (integer) of each hour: UTC shifted by the longitude, so a day holds one noon. */
export function solarDays(timeline: Timeline): Int32Array {
  const shift = (timeline.geometry.longitude / 15) * HOUR_MS;
  return Int32Array.from({ length: timeline.hours }, (_, hour) =>
    floor((timeline.start + hour * HOUR_MS + shift) / DAY_MS),
  );
}

/** Daylight hours of complete, single-peaked days near their fortnight's best: the clear days. */
export function clearDayHours(timeline: Timeline, until = timeline.hours): { days: number; hours: number[] } {
  const { solar, geometry } = timeline;
  const dayOf = solarDays(timeline);
  const days: { day: number; hours: number[]; ratio: number; singlePeak: boolean }[] = [];
  let current: number[] = [];
  const close = () => {
    if (current.length === 0) return;
    const hours = current;
    current = [];
    if (hours.some((hour) => !isFiniteNumber(solar[hour]))) return;
    // A day the timeline starts in the middle of is incomplete.
    if (hours[0] === 0) return;
    let energy = 0;
    let clear = 0;
    let peak = 0;
    for (const hour of hours) {
      energy += solar[hour];
      clear += geometry.clearGhiMean[hour];
      peak = max(peak, solar[hour]);
    }
    if (!(energy > 0)) return;
    // Local maxima above 5 % of the peak: one for a clear day, more when clouds passed.
    let peaks = 0;
    for (let index = 0; index < hours.length; index++) {
      const value = solar[hours[index]];
      const before = index > 0 ? solar[hours[index - 1]] : -1;
      const after = index + 1 < hours.length ? solar[hours[index + 1]] : -1;
      if (value >= before && value > after && value > 0.05 * peak) peaks++;
    }
    days.push({ day: dayOf[hours[0]], hours, ratio: energy / clear, singlePeak: peaks === 1 });
  };
  for (let hour = 0; hour < until; hour++) {
    if (geometry.clearGhiMean[hour] > 0) current.push(hour);
    else close();
  }
  if (until < timeline.hours && geometry.clearGhiMean[until] > 0) current = [];
  close();
  const clearHours: number[] = [];
  let clearDays = 0;
  for (const candidate of days) {
    if (!candidate.singlePeak) continue;
    let best = 0;
    for (const other of days) if (abs(other.day - candidate.day) <= 15) best = max(best, other.ratio);
    if (candidate.ratio < 0.85 * best) continue;
    clearDays++;
    clearHours.push(...candidate.hours);
  }
  return { days: clearDays, hours: clearHours };
}

/** Cells lose this share of power per K above 25 °C (crystalline silicon). */
const TEMPERATURE_COEFFICIENT = -0.004;
/** Cells run this many K above the air per W/m² on the plane (NOCT-style rule of thumb). */
const CELL_HEATING = 0.03;

/**
 * The cells' temperature derating for plane irradiance and air temperature (1 when the air
 * temperature is unknown). Without it a summer noon's hot cells read as too little irradiance and
 * a cold winter day's as too much, and the fit tilts the array steeper to match.
 */
export function cellDerating(plane: number, air: number): number {
  return isFiniteNumber(air) ? max(0, 1 + TEMPERATURE_COEFFICIENT * (air + CELL_HEATING * plane - 25)) : 1;
}

/**
 * The orientation and the clear-day hours the clear-sky scale is fitted on. An `installed`
 * orientation is returned as it is, with the clear hours of the history, however few.
 */
export function inferOrientation(
  timeline: Timeline,
  maxPower: number,
  installed?: Orientation | null,
  until = timeline.hours,
): OrientationFit {
  const { geometry, solar, shortwave, temperature } = timeline;
  const clear = clearDayHours(timeline, until);
  const usable = (hours: number[]) =>
    hours.filter((hour) => geometry.elevation[hour] >= 5 && solar[hour] < 0.97 * maxPower);
  if (installed) {
    return {
      orientation: { tilt: installed.tilt, azimuth: installed.azimuth },
      source: 'installed',
      clearDays: clear.days,
      clearHours: usable(clear.hours),
    };
  }
  if (clear.days < MIN_CLEAR_DAYS) {
    return {
      orientation: defaultOrientation(geometry.latitude),
      source: 'default',
      clearDays: clear.days,
      clearHours: [],
    };
  }
  const used = usable(clear.hours);
  const withWeather = used.filter((hour) => isFiniteNumber(shortwave[hour])).length;
  const source = withWeather >= 0.9 * used.length ? 'weather' : 'clear-sky';
  const ghi = source === 'weather' ? shortwave : geometry.clearGhiMean;
  const components = decompose(geometry, ghi);
  const plane = new Float64Array(geometry.hours);
  const score = (orientation: Orientation) => {
    planeOfArray(geometry, components, orientation, plane);
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (const hour of used) {
      const x = plane[hour] * cellDerating(plane[hour], temperature[hour]);
      if (!isFiniteNumber(x)) continue;
      xy += x * solar[hour];
      xx += x * x;
      yy += solar[hour] * solar[hour];
    }
    return xx > 0 ? yy - (xy * xy) / xx : Infinity;
  };
  const centre = geometry.latitude >= 0 ? 180 : 0;
  let best = { orientation: defaultOrientation(geometry.latitude), error: Infinity };
  const consider = (tilt: number, azimuth: number) => {
    if (tilt < TILT_RANGE[0] || tilt > TILT_RANGE[1]) return;
    const orientation = { tilt, azimuth: ((azimuth % 360) + 360) % 360 };
    const error = score(orientation);
    if (error < best.error) best = { orientation, error };
  };
  for (let tilt = TILT_RANGE[0]; tilt <= TILT_RANGE[1]; tilt += 5) {
    for (let offset = -90; offset <= 90; offset += 10) consider(tilt, centre + offset);
  }
  const coarse = best.orientation;
  const coarseOffset = ((coarse.azimuth - centre + 540) % 360) - 180;
  for (let tilt = coarse.tilt - 4; tilt <= coarse.tilt + 4; tilt++) {
    for (let offset = coarseOffset - 8; offset <= coarseOffset + 8; offset += 2) {
      if (abs(offset) <= 90) consider(tilt, centre + offset);
    }
  }
  return { orientation: best.orientation, source, clearDays: clear.days, clearHours: used };
}
