/**
 * How the accuracy of an hourly solar forecast is measured, wherever it is reported: the
 * benchmark, and any endpoint that scores a source's forecasts against its telemetry. Pure
 * functions over plain numbers; every result is a finite number or `null`, never NaN.
 *
 * - A daytime hour is one whose mean solar elevation over the hour is above 0°.
 * - Solar errors are taken over daytime hours that have both a forecast and a measurement, and
 *   normalised by the installed capacity: nMAE = mean |forecast − measured| / capacity,
 *   nRMSE = √(mean (forecast − measured)²) / capacity.
 * - Smart persistence, the reference a forecast has to beat: yesterday's daily clear-sky index
 *   (measured energy over clear-sky energy of the array, over yesterday's hours with clear-sky
 *   power and a measurement) times today's clear-sky power, hour by hour.
 * - Skill against a reference = 1 − RMSE(forecast) / RMSE(reference) over the same hours.
 */

import { sunGeometry, SUBSTEPS } from '../model/pv-physics';

/** A daily clear-sky index is clamped to this (bright broken clouds can lift a day above clear sky). */
export const MAX_DAILY_CLEAR_SKY_INDEX = 1.5;
/**
 * A day's clear-sky index is only taken when its measured hours hold at least this share of the
 * day's clear-sky energy: a day measured only at dawn says nothing about the rest.
 */
export const MIN_INDEX_COVERAGE = 0.5;

/** The definitions above, one line each, for reports that print or document them. */
export const SOLAR_ACCURACY_DEFINITIONS: readonly string[] = [
  `daytime hour: the mean solar elevation over the hour (${SUBSTEPS} evenly spaced instants) is above 0°`,
  'nMAE = mean |forecast − measured| / installed capacity; nRMSE = √(mean (forecast − measured)²) / installed capacity,',
  '  over the daytime hours that have a measurement, a forecast and a smart-persistence value',
  'smart persistence (SP) = yesterday’s daily clear-sky index × today’s clear-sky power, hour by hour; the index is',
  '  measured energy / clear-sky energy over yesterday’s hours with clear-sky power and a measurement (dawn and dusk',
  `  included), clamped to 0–1.5, and is missing (so is SP for the day) when those hours hold under ${100 * MIN_INDEX_COVERAGE} %`,
  '  of yesterday’s clear-sky energy',
  'skill = 1 − RMSE(forecast) / RMSE(reference) over the same hours: 0 is as good as the reference, 1 is perfect',
];

/** Mean solar elevation over the hour (degrees, as `sunGeometry` gives it) → whether it is daytime. */
export function isDaytimeHour(meanElevationDegrees: number): boolean {
  return meanElevationDegrees > 0;
}

/** Whether the UTC hour starting at `hourStart` (ms) is a daytime hour at the place. */
export function isDaytimeAt(hourStart: number, latitude: number, longitude: number): boolean {
  return isDaytimeHour(sunGeometry(hourStart, 1, latitude, longitude).elevation[0]);
}

export interface ErrorStats {
  /** Pairs scored. */
  count: number;
  /** Mean absolute error, in the unit of the values. */
  mae: number;
  /** Root mean square error, in the unit of the values. */
  rmse: number;
}

/**
 * MAE and RMSE over `[forecast, measured]` pairs; pairs where either side is not a finite number
 * are left out. Null when no pair is left.
 */
export function errorStats(pairs: Iterable<readonly [number, number]>): ErrorStats | null {
  let count = 0;
  let absolute = 0;
  let squared = 0;
  for (const [forecast, measured] of pairs) {
    if (!Number.isFinite(forecast) || !Number.isFinite(measured)) continue;
    const error = forecast - measured;
    count++;
    absolute += Math.abs(error);
    squared += error * error;
  }
  return count > 0 ? { count, mae: absolute / count, rmse: Math.sqrt(squared / count) } : null;
}

export interface SolarErrors extends ErrorStats {
  /** MAE / capacity, a fraction (0.05 is 5 %). */
  nmae: number;
  /** RMSE / capacity, a fraction. */
  nrmse: number;
}

/**
 * Solar errors in W and normalised by the installed capacity (W). The pairs should already be
 * the daytime hours to score. Null when no pair is scorable; a capacity that is not a positive
 * number is a programming error.
 */
export function solarErrors(
  pairs: Iterable<readonly [number, number]>,
  capacityWatts: number,
): SolarErrors | null {
  if (!(capacityWatts > 0) || !Number.isFinite(capacityWatts))
    throw new RangeError(`capacity must be a positive number of W, got ${capacityWatts}`);
  const stats = errorStats(pairs);
  if (!stats) return null;
  return { ...stats, nmae: stats.mae / capacityWatts, nrmse: stats.rmse / capacityWatts };
}

/** 1 − RMSE / RMSE of the reference; null when the reference is perfect (RMSE 0) or missing. */
export function skillScore(forecast: ErrorStats, reference: ErrorStats | null): number | null {
  if (!reference || !(reference.rmse > 0)) return null;
  return 1 - forecast.rmse / reference.rmse;
}

/**
 * One day's clear-sky index: measured energy over clear-sky energy, over the day's hours with a
 * clear-sky power above 0 and a finite measurement (the arrays are aligned hour by hour; a
 * missing measurement is NaN). Null when those hours hold under `MIN_INDEX_COVERAGE` of the day's
 * clear-sky energy.
 */
export function dailyClearSkyIndex(measured: ArrayLike<number>, clearSky: ArrayLike<number>): number | null {
  let produced = 0;
  let possible = 0;
  let dayTotal = 0;
  for (let hour = 0; hour < clearSky.length; hour++) {
    const clear = clearSky[hour];
    if (!(clear > 0)) continue;
    dayTotal += clear;
    const value = measured[hour];
    if (!Number.isFinite(value)) continue;
    produced += Math.max(0, value);
    possible += clear;
  }
  if (!(dayTotal > 0) || possible < MIN_INDEX_COVERAGE * dayTotal) return null;
  return Math.min(MAX_DAILY_CLEAR_SKY_INDEX, produced / possible);
}

/**
 * Smart persistence for today, hour by hour: yesterday's daily clear-sky index times today's
 * clear-sky power (0 where the clear sky is dark). Null when yesterday has no index.
 */
export function smartPersistence(
  yesterdayMeasured: ArrayLike<number>,
  yesterdayClearSky: ArrayLike<number>,
  todayClearSky: ArrayLike<number>,
): number[] | null {
  const index = dailyClearSkyIndex(yesterdayMeasured, yesterdayClearSky);
  if (index === null) return null;
  return Array.from(todayClearSky, (clear) => (clear > 0 ? index * clear : 0));
}
