import { clearSkyIndex } from '../solar/irradiance';
import { CLIMATOLOGICAL_CLEARNESS } from './baseline';
import { cosIncidenceAtMidHour, HOUR_MS } from './pv-physics';
import { clearSkyPower, PvModel, weatherPower } from './pv-model';
import { Timeline } from './timeline';
import { cloudTransmission } from './weather-codes';

// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { ceil, cos, floor, max, min, sin } = Math;
const isFiniteNumber = Number.isFinite;

/**
 * The feature groups of the model, for a target hour `t` forecast from an origin `o` (the first
 * hour not yet observed; the horizon is t − o + 1 hours). Everything taken from the telemetry lies
 * before the origin, so a feature means the same in training (origins replayed in the history)
 * and in a forecast:
 *
 * - cyclical time: hour of day (local mean solar time, from the longitude), day of year, month and
 *   day of week as sine and cosine (day of year and month not for solar without weather);
 * - solar physics: mean elevation, azimuth, angle of incidence on the inferred plane, Haurwitz
 *   clear-sky GHI, extraterrestrial irradiance on the horizontal, the array's clear-sky power;
 * - weather: temperature, shortwave radiation and its clear-sky index (this hour, the hours on
 *   either side, the surrounding day), UV index, precipitation, weather code, cloud cover, and
 *   the physical model's power from them;
 * - per-hour profiles: the same hour over the last 7 days (solar as clear-sky index and as power,
 *   load, state of charge), the same hour on the last day and the same weekday;
 * - rolling means of the 1 h and 3 h before the origin (for hourly data the 1 h mean is the
 *   lag-1 value), plus 24 h and 7 days for levels, and ratios of produced to clear-sky energy over
 *   the last 1, 2, 3 and 7 days (yesterday's cloudiness, snow lying on the panels).
 */

/**
 * Where in the year an hour lies, for the models that may learn one season's own weather (a
 * snowy spring, a clear autumn) from it. The solar model without weather has no such feature: a
 * year of history has one sample of each date, and with them its trees learned that year's weather
 * by date and carried it to dates they had not seen. The sun's elevation, the clear-sky irradiance
 * and the extraterrestrial irradiance tell it the season alike on either side of a solstice
 * (docs/performance.md, "Forecast accuracy").
 */
const CALENDAR_FEATURES = ['dayOfYearSin', 'dayOfYearCos', 'monthSin', 'monthCos'] as const;

/** The solar features every solar model has, after the hour (and, with weather, the calendar). */
const SOLAR_SKY_AND_HISTORY_FEATURES = [
  'elevation',
  'azimuth',
  'cosIncidence',
  'clearSkyGhi',
  'extraterrestrialHorizontal',
  'clearSkyPower',
  'horizon',
  'solarLag1',
  'solarRolling3h',
  'solarIndexLastDay',
  'solarIndexProfile7d',
  'solarProfile7d',
  'solarRatio24h',
  'solarRatio24to48h',
  'solarRatio72h',
  'solarRatio7d',
] as const;

export const SOLAR_HISTORY_FEATURES = ['hourSin', 'hourCos', ...SOLAR_SKY_AND_HISTORY_FEATURES] as const;

export const SOLAR_WEATHER_FEATURES = [
  'hourSin',
  'hourCos',
  ...CALENDAR_FEATURES,
  ...SOLAR_SKY_AND_HISTORY_FEATURES,
  'shortwave',
  'clearness',
  'clearnessPreviousHour',
  'clearnessNextHour',
  'clearness7h',
  'clearness25h',
  'temperature',
  'cloudCover',
  'weatherCode',
  'uvIndex',
  'precipitation',
  'physicalPower',
  'planeIrradiance',
  'performance72h',
] as const;

export const LOAD_HISTORY_FEATURES = [
  'hourSin',
  'hourCos',
  ...CALENDAR_FEATURES,
  'dayOfWeekSin',
  'dayOfWeekCos',
  'weekend',
  'elevation',
  'clearSkyGhi',
  'horizon',
  'loadLag1',
  'loadRolling3h',
  'loadRolling24h',
  'loadMean7d',
  'loadLastDay',
  'loadLastWeek',
  'loadProfile7d',
  'loadProfileSameDayType',
  'stateOfChargeLag1',
  'stateOfChargeProfile7d',
  'solarRatio24h',
] as const;

export const LOAD_WEATHER_FEATURES = [
  ...LOAD_HISTORY_FEATURES,
  'temperature',
  'temperature25h',
  'shortwave',
  'clearness',
  'cloudCover',
  'weatherCode',
  'precipitation',
] as const;

export type FeatureSet = 'solarHistory' | 'solarWeather' | 'loadHistory' | 'loadWeather';

/** The features a model trained by this code reads, stored with it (`featureNames`). */
export const FEATURE_NAMES: Record<FeatureSet, readonly string[]> = {
  solarHistory: SOLAR_HISTORY_FEATURES,
  solarWeather: SOLAR_WEATHER_FEATURES,
  loadHistory: LOAD_HISTORY_FEATURES,
  loadWeather: LOAD_WEATHER_FEATURES,
};

/**
 * The features rows are computed with, a superset of `FEATURE_NAMES`: those of models stored by
 * earlier versions of this code too (the solar model without weather read the calendar until
 * 2026-11). A model's rows are the columns of its own names, so a stored model keeps forecasting
 * after a feature is dropped, until it is trained again.
 */
const COMPUTED_FEATURES: Record<FeatureSet, readonly string[]> = {
  ...FEATURE_NAMES,
  solarHistory: ['hourSin', 'hourCos', ...CALENDAR_FEATURES, ...SOLAR_SKY_AND_HISTORY_FEATURES],
};

/** Whether rows of `set` can be given with the features `names`, in that order: each one known, none twice. */
export function readableFeatures(set: FeatureSet, names: readonly string[]): boolean {
  const known = COMPUTED_FEATURES[set];
  return new Set(names).size === names.length && names.every((name) => known.includes(name));
}

/** Hours whose clear-sky power is below this share of the limit give no clear-sky index. */
const MIN_INDEX_SHARE = 0.05;
const TWO_PI = 2 * Math.PI;

/** Everything derived once per timeline that the features read. */
export interface FeatureContext {
  timeline: Timeline;
  pv: PvModel;
  /** W: what the features normalise power by. */
  capacity: number;
  /** W */
  clearPower: Float64Array;
  /** W/m²: the weather's shortwave radiation, or the clear sky dimmed by cloud cover or weather code. */
  ghi: Float64Array;
  /** W/m² on the plane, NaN without weather. */
  plane: Float64Array;
  /** W from the weather through the physical model, NaN without weather. */
  physicalPower: Float64Array;
  cosIncidence: Float64Array;
  /** Solar power over clear-sky power (0..1.5), NaN when dark or unknown. */
  solarIndex: Float64Array;
  /** Hour of the day (0–24, mid-hour) in local mean solar time. */
  localHour: Float64Array;
  /** 0 Sunday … 6 Saturday, of the local (longitude-shifted) day. */
  dayOfWeek: Uint8Array;
  dayOfYear: Float64Array;
  month: Float64Array;
  prefix: {
    solar: Float64Array;
    clearWhereSolar: Float64Array;
    solarWherePhysical: Float64Array;
    physicalWhereSolar: Float64Array;
    load: Float64Array;
    loadCount: Float64Array;
    ghi: Float64Array;
    clearWhereGhi: Float64Array;
    temperature: Float64Array;
    temperatureCount: Float64Array;
  };
}

function prefixSum(hours: number, value: (hour: number) => number): Float64Array {
  const sums = new Float64Array(hours + 1);
  for (let hour = 0; hour < hours; hour++) {
    const v = value(hour);
    sums[hour + 1] = sums[hour] + (isFiniteNumber(v) ? v : 0);
  }
  return sums;
}

export function featureContext(timeline: Timeline, pv: PvModel, capacity: number): FeatureContext {
  const { geometry, hours } = timeline;
  const clearPower = clearSkyPower(pv, timeline);
  const ghi = new Float64Array(hours);
  for (let hour = 0; hour < hours; hour++) {
    if (isFiniteNumber(timeline.shortwave[hour])) {
      ghi[hour] = timeline.shortwave[hour];
      continue;
    }
    const transmission = cloudTransmission(timeline.cloudCover[hour], timeline.weatherCode[hour]);
    ghi[hour] = transmission === null ? NaN : transmission * geometry.clearGhiMean[hour];
  }
  const { plane, power: physicalPower } = weatherPower(pv, timeline, ghi);
  const solarIndex = new Float64Array(hours);
  for (let hour = 0; hour < hours; hour++) {
    const clear = clearPower[hour];
    const solar = timeline.solar[hour];
    solarIndex[hour] =
      clear >= MIN_INDEX_SHARE * pv.maxPower && isFiniteNumber(solar) ? min(1.5, solar / clear) : NaN;
  }
  const shift = geometry.longitude / 15;
  const localHour = new Float64Array(hours);
  const dayOfWeek = new Uint8Array(hours);
  const dayOfYear = new Float64Array(hours);
  const month = new Float64Array(hours);
  for (let hour = 0; hour < hours; hour++) {
    const middle = timeline.start + hour * HOUR_MS + HOUR_MS / 2;
    const local = middle / HOUR_MS + shift;
    localHour[hour] = ((local % 24) + 24) % 24;
    const localDay = floor(local / 24);
    dayOfWeek[hour] = (((localDay + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
    const date = new Date(middle);
    const yearStart = Date.UTC(date.getUTCFullYear(), 0, 1);
    dayOfYear[hour] = (middle - yearStart) / 86_400_000;
    month[hour] = date.getUTCMonth();
  }
  const known = (value: number) => isFiniteNumber(value);
  const solar = timeline.solar;
  return {
    timeline,
    pv,
    capacity,
    clearPower,
    ghi,
    plane,
    physicalPower,
    cosIncidence: cosIncidenceAtMidHour(geometry, pv.orientation),
    solarIndex,
    localHour,
    dayOfWeek,
    dayOfYear,
    month,
    prefix: {
      solar: prefixSum(hours, (hour) => solar[hour]),
      clearWhereSolar: prefixSum(hours, (hour) => (known(solar[hour]) ? clearPower[hour] : NaN)),
      solarWherePhysical: prefixSum(hours, (hour) =>
        known(physicalPower[hour]) && geometry.clearGhiMean[hour] > 0 ? solar[hour] : NaN,
      ),
      physicalWhereSolar: prefixSum(hours, (hour) =>
        known(solar[hour]) && geometry.clearGhiMean[hour] > 0 ? physicalPower[hour] : NaN,
      ),
      load: prefixSum(hours, (hour) => timeline.load[hour]),
      loadCount: prefixSum(hours, (hour) => (known(timeline.load[hour]) ? 1 : NaN)),
      ghi: prefixSum(hours, (hour) => (geometry.clearGhiMean[hour] > 0 ? ghi[hour] : NaN)),
      clearWhereGhi: prefixSum(hours, (hour) => (known(ghi[hour]) ? geometry.clearGhiMean[hour] : NaN)),
      temperature: prefixSum(hours, (hour) => timeline.temperature[hour]),
      temperatureCount: prefixSum(hours, (hour) => (known(timeline.temperature[hour]) ? 1 : NaN)),
    },
  };
}

/** Sum of a prefix-summed series over [from, to), clamped to the timeline. */
function windowSum(prefix: Float64Array, from: number, to: number): number {
  const last = prefix.length - 1;
  const a = max(0, min(last, from));
  const b = max(0, min(last, to));
  return b > a ? prefix[b] - prefix[a] : 0;
}

function ratio(numerator: number, denominator: number, minimum: number): number {
  return denominator > minimum ? numerator / denominator : NaN;
}

const at = (series: ArrayLike<number>, index: number) =>
  index >= 0 && index < series.length ? series[index] : NaN;

/** Days back to the latest same hour before the origin: 1 within the first 24 h of horizon, then more. */
const daysBack = (target: number, origin: number) => max(1, ceil((target - origin + 1) / 24));

function sameHourMean(series: ArrayLike<number>, target: number, origin: number, days: number): number {
  const first = daysBack(target, origin);
  let sum = 0;
  let count = 0;
  for (let day = first; day < first + days; day++) {
    const value = at(series, target - 24 * day);
    if (isFiniteNumber(value)) {
      sum += value;
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}

function sameDayTypeMean(context: FeatureContext, target: number, origin: number, wanted: number): number {
  const weekend = (hour: number) => context.dayOfWeek[hour] === 0 || context.dayOfWeek[hour] === 6;
  const targetWeekend = weekend(target);
  const first = daysBack(target, origin);
  let sum = 0;
  let count = 0;
  for (let day = first; day < first + 21 && count < wanted; day++) {
    const hour = target - 24 * day;
    if (hour < 0) break;
    if (weekend(hour) !== targetWeekend) continue;
    const value = context.timeline.load[hour];
    if (isFiniteNumber(value)) {
      sum += value;
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}

function clearnessAt(context: FeatureContext, hour: number): number {
  const clear = at(context.timeline.geometry.clearGhiMean, hour);
  return clearSkyIndex(at(context.ghi, hour), clear) ?? NaN;
}

function clearnessAround(context: FeatureContext, hour: number, halfWidth: number): number {
  const from = hour - halfWidth;
  const to = hour + halfWidth + 1;
  return ratio(
    windowSum(context.prefix.ghi, from, to),
    windowSum(context.prefix.clearWhereGhi, from, to),
    10,
  );
}

function meanOver(sum: Float64Array, count: Float64Array, from: number, to: number): number {
  const n = windowSum(count, from, to);
  return n > 0 ? windowSum(sum, from, to) / n : NaN;
}

/**
 * The solar baseline's clear-sky index: produced over clear-sky energy in the 24 hours before the
 * origin (capped at 1.5), the climatological 0.7 when those hours were not measured. Times the
 * clear-sky power it is smart persistence.
 */
export function recentClearSkyIndex(context: FeatureContext, origin: number): number {
  const index = ratio(
    windowSum(context.prefix.solar, origin - 24, origin),
    windowSum(context.prefix.clearWhereSolar, origin - 24, origin),
    0.1 * context.pv.maxPower,
  );
  return isFiniteNumber(index) ? min(1.5, index) : CLIMATOLOGICAL_CLEARNESS;
}

export interface FeatureRowOptions {
  /** The features of the rows, in order (a stored model's `featureNames`); `FEATURE_NAMES[set]` by default. */
  names?: readonly string[];
  /** 1 at row i hides `performance72h` in it (see training). */
  maskPerformance?: ArrayLike<number>;
}

/** Feature rows for (target, origin) pairs, row-major. */
export function featureRows(
  context: FeatureContext,
  set: FeatureSet,
  targets: ArrayLike<number>,
  origins: ArrayLike<number>,
  { names = FEATURE_NAMES[set], maskPerformance }: FeatureRowOptions = {},
): Float64Array {
  if (!readableFeatures(set, names)) throw new Error(`featureRows: ${set} has no features ${names.join()}`);
  const computed = COMPUTED_FEATURES[set];
  const columns = names.map((name) => computed.indexOf(name));
  const width = names.length;
  const row = new Float64Array(computed.length);
  const values = new Float64Array(targets.length * width);
  for (let index = 0; index < targets.length; index++) {
    const written = writeFeatures(
      context,
      set,
      targets[index],
      origins[index],
      maskPerformance?.[index] === 1,
      row,
    );
    if (written !== computed.length)
      throw new Error(`featureRows: ${set} wrote ${written} of ${computed.length} features`);
    const offset = index * width;
    for (let column = 0; column < width; column++) values[offset + column] = row[columns[column]];
  }
  return values;
}

/** Writes one row of `COMPUTED_FEATURES[set]` into `out`, from index 0; returns how many it wrote. */
function writeFeatures(
  context: FeatureContext,
  set: FeatureSet,
  target: number,
  origin: number,
  maskPerformance: boolean,
  out: Float64Array,
): number {
  const { timeline, capacity, prefix } = context;
  const { geometry } = timeline;
  let index = 0;
  const put = (value: number) => {
    out[index++] = value;
  };
  const hourAngle = (TWO_PI * context.localHour[target]) / 24;
  const dayAngle = (TWO_PI * context.dayOfYear[target]) / 365.25;
  const monthAngle = (TWO_PI * context.month[target]) / 12;
  put(sin(hourAngle));
  put(cos(hourAngle));
  put(sin(dayAngle));
  put(cos(dayAngle));
  put(sin(monthAngle));
  put(cos(monthAngle));
  const solarRatio24h = ratio(
    windowSum(prefix.solar, origin - 24, origin),
    windowSum(prefix.clearWhereSolar, origin - 24, origin),
    0.1 * context.pv.maxPower,
  );

  if (set === 'solarHistory' || set === 'solarWeather') {
    put(geometry.elevation[target]);
    put(geometry.azimuth[target]);
    put(context.cosIncidence[target]);
    put(geometry.clearGhiMean[target]);
    put(geometry.extraterrestrialHorizontal[target]);
    put(context.clearPower[target] / capacity);
    put(target - origin + 1);
    put(at(timeline.solar, origin - 1) / capacity);
    put(meanOf(timeline.solar, origin - 3, origin) / capacity);
    put(sameHourMean(context.solarIndex, target, origin, 1));
    put(sameHourMean(context.solarIndex, target, origin, 7));
    put(sameHourMean(timeline.solar, target, origin, 7) / capacity);
    const minimum = 0.1 * context.pv.maxPower;
    put(solarRatio24h);
    put(
      ratio(
        windowSum(prefix.solar, origin - 48, origin - 24),
        windowSum(prefix.clearWhereSolar, origin - 48, origin - 24),
        minimum,
      ),
    );
    put(
      ratio(
        windowSum(prefix.solar, origin - 72, origin),
        windowSum(prefix.clearWhereSolar, origin - 72, origin),
        minimum,
      ),
    );
    put(
      ratio(
        windowSum(prefix.solar, origin - 168, origin),
        windowSum(prefix.clearWhereSolar, origin - 168, origin),
        minimum,
      ),
    );
    if (set === 'solarWeather') {
      put(context.ghi[target]);
      put(clearnessAt(context, target));
      put(clearnessAt(context, target - 1));
      put(clearnessAt(context, target + 1));
      put(clearnessAround(context, target, 3));
      put(clearnessAround(context, target, 12));
      put(timeline.temperature[target]);
      put(timeline.cloudCover[target]);
      put(timeline.weatherCode[target]);
      put(timeline.uvIndex[target]);
      put(timeline.precipitation[target]);
      put(context.physicalPower[target] / capacity);
      put(context.plane[target] / 1000);
      put(
        maskPerformance
          ? NaN
          : ratio(
              windowSum(prefix.solarWherePhysical, origin - 72, origin),
              windowSum(prefix.physicalWhereSolar, origin - 72, origin),
              minimum,
            ),
      );
    }
    return index;
  }

  const dayAngleOfWeek = (TWO_PI * context.dayOfWeek[target]) / 7;
  put(sin(dayAngleOfWeek));
  put(cos(dayAngleOfWeek));
  put(context.dayOfWeek[target] === 0 || context.dayOfWeek[target] === 6 ? 1 : 0);
  put(geometry.elevation[target]);
  put(geometry.clearGhiMean[target]);
  put(target - origin + 1);
  put(at(timeline.load, origin - 1));
  put(meanOver(prefix.load, prefix.loadCount, origin - 3, origin));
  put(meanOver(prefix.load, prefix.loadCount, origin - 24, origin));
  put(meanOver(prefix.load, prefix.loadCount, origin - 168, origin));
  put(sameHourMean(timeline.load, target, origin, 1));
  const weeksBack = max(1, ceil((target - origin + 1) / 168));
  put(at(timeline.load, target - 168 * weeksBack));
  put(sameHourMean(timeline.load, target, origin, 7));
  put(sameDayTypeMean(context, target, origin, 3));
  put(at(timeline.stateOfCharge, origin - 1));
  put(sameHourMean(timeline.stateOfCharge, target, origin, 7));
  put(solarRatio24h);
  if (set === 'loadWeather') {
    put(timeline.temperature[target]);
    put(meanOver(prefix.temperature, prefix.temperatureCount, target - 12, target + 13));
    put(context.ghi[target]);
    put(clearnessAt(context, target));
    put(timeline.cloudCover[target]);
    put(timeline.weatherCode[target]);
    put(timeline.precipitation[target]);
  }
  return index;
}

function meanOf(series: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  let count = 0;
  for (let hour = max(0, from); hour < min(series.length, to); hour++) {
    if (isFiniteNumber(series[hour])) {
      sum += series[hour];
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}
