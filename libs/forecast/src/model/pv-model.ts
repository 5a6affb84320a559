import { inferOrientation, OrientationFit } from './orientation';
import { decompose, Orientation, planeOfArray } from './pv-physics';
import { Timeline } from './timeline';

// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { abs, floor, max, min, sqrt } = Math;
const isFiniteNumber = Number.isFinite;

/**
 * The physical half of the solar forecast: the array's inferred orientation and a few
 * coefficients from the history, turning irradiance on the plane into AC power:
 * P = a·POA + b·POA·T + c·POA² (the temperature term is the cells' power coefficient, the square
 * term inverter efficiency and heating by the sun), bounded by the inverter's limit. The learned
 * trees correct what is left.
 */
export interface PvModel {
  orientation: Orientation;
  orientationSource: OrientationFit['source'];
  clearDays: number;
  /** W per W/m² of clear-sky (Haurwitz) plane irradiance, fitted on clear days: the clear-sky power. */
  clearSkyScale: number;
  /** [a, b, c] with air temperature, or null when the history had too little weather. */
  withTemperature: [number, number, number] | null;
  /** [a, c] for hours without a temperature. */
  withoutTemperature: [number, number] | null;
  /** W: no forecast goes above it. */
  maxPower: number;
  /** Daylight hours the weather coefficients were fitted on. */
  fittedHours: number;
}

const MIN_FIT_HOURS = 48;

/** Gaussian elimination with partial pivoting; null when singular. */
export function solveLinear(matrix: number[][], vector: number[]): number[] | null {
  const size = vector.length;
  const rows = matrix.map((row, index) => [...row, vector[index]]);
  for (let column = 0; column < size; column++) {
    let pivot = column;
    for (let row = column + 1; row < size; row++) {
      if (abs(rows[row][column]) > abs(rows[pivot][column])) pivot = row;
    }
    if (abs(rows[pivot][column]) < 1e-12) return null;
    [rows[column], rows[pivot]] = [rows[pivot], rows[column]];
    for (let row = column + 1; row < size; row++) {
      const factor = rows[row][column] / rows[column][column];
      for (let entry = column; entry <= size; entry++) rows[row][entry] -= factor * rows[column][entry];
    }
  }
  const solution = new Array<number>(size).fill(0);
  for (let row = size - 1; row >= 0; row--) {
    let sum = rows[row][size];
    for (let entry = row + 1; entry < size; entry++) sum -= rows[row][entry] * solution[entry];
    solution[row] = sum / rows[row][row];
  }
  return solution;
}

/**
 * Least squares through the origin on the given regressors, twice: the second pass leaves out the
 * hours more than three standard deviations off the first (snow on the panels, outages).
 */
function robustLeastSquares(rows: number[][], targets: number[]): number[] | null {
  let keep = rows.map(() => true);
  let solution: number[] | null = null;
  for (let pass = 0; pass < 2; pass++) {
    const size = rows[0]?.length ?? 0;
    const normal = Array.from({ length: size }, () => new Array<number>(size).fill(0));
    const right = new Array<number>(size).fill(0);
    rows.forEach((row, index) => {
      if (!keep[index]) return;
      for (let i = 0; i < size; i++) {
        right[i] += row[i] * targets[index];
        for (let j = 0; j < size; j++) normal[i][j] += row[i] * row[j];
      }
    });
    solution = solveLinear(normal, right);
    if (!solution) return null;
    const fitted = solution;
    const residuals = rows.map(
      (row, index) => targets[index] - row.reduce((sum, x, i) => sum + x * fitted[i], 0),
    );
    const kept = residuals.filter((_, index) => keep[index]);
    const sigma = sqrt(kept.reduce((sum, residual) => sum + residual * residual, 0) / max(1, kept.length));
    keep = residuals.map((residual) => abs(residual) <= 3 * sigma);
  }
  return solution;
}

/**
 * Fits orientation and coefficients on the hours before `until`. `fallbackScale` (W per W/m²) is
 * used when the history has no solar power to fit a clear-sky scale on. An `installed`
 * orientation is taken as it is, instead of the one the history suggests.
 */
export function fitPvModel(
  timeline: Timeline,
  maxPower: number,
  fallbackScale: number,
  installed?: Orientation | null,
  until = timeline.hours,
): PvModel {
  const { geometry, solar, shortwave, temperature } = timeline;
  const fit = inferOrientation(timeline, maxPower, installed, until);
  const clearPlane = planeOfArray(geometry, decompose(geometry, geometry.clearGhiMean), fit.orientation);

  let clearSkyScale = fallbackScale;
  if (fit.clearHours.length > 0) {
    let xy = 0;
    let xx = 0;
    for (const hour of fit.clearHours) {
      xy += clearPlane[hour] * solar[hour];
      xx += clearPlane[hour] * clearPlane[hour];
    }
    if (xx > 0 && xy > 0) clearSkyScale = xy / xx;
  } else {
    // No clear days: a high quantile of power over clear-sky plane irradiance stands in.
    const ratios: number[] = [];
    for (let hour = 0; hour < until; hour++) {
      if (geometry.elevation[hour] > 15 && clearPlane[hour] > 100 && isFiniteNumber(solar[hour]))
        ratios.push(solar[hour] / clearPlane[hour]);
    }
    if (ratios.length >= 24) {
      ratios.sort((a, b) => a - b);
      clearSkyScale = max(ratios[floor(0.95 * (ratios.length - 1))], 1e-3);
    }
  }

  const plane = planeOfArray(geometry, decompose(geometry, shortwave), fit.orientation);
  const rowsT: number[][] = [];
  const targetsT: number[] = [];
  const rows: number[][] = [];
  const targets: number[] = [];
  for (let hour = 0; hour < until; hour++) {
    const poa = plane[hour];
    if (!(geometry.clearGhiMean[hour] > 0) || !isFiniteNumber(poa) || !isFiniteNumber(solar[hour])) continue;
    rows.push([poa, poa * poa]);
    targets.push(solar[hour]);
    if (isFiniteNumber(temperature[hour])) {
      rowsT.push([poa, poa * temperature[hour], poa * poa]);
      targetsT.push(solar[hour]);
    }
  }
  const sane = (solution: number[] | null) => (solution && solution[0] > 0 ? solution : null);
  const withTemperature = rowsT.length >= MIN_FIT_HOURS ? sane(robustLeastSquares(rowsT, targetsT)) : null;
  const withoutTemperature = rows.length >= MIN_FIT_HOURS ? sane(robustLeastSquares(rows, targets)) : null;
  return {
    orientation: fit.orientation,
    orientationSource: fit.source,
    clearDays: fit.clearDays,
    clearSkyScale,
    withTemperature: withTemperature ? [withTemperature[0], withTemperature[1], withTemperature[2]] : null,
    withoutTemperature: withoutTemperature ? [withoutTemperature[0], withoutTemperature[1]] : null,
    maxPower,
    fittedHours: rows.length,
  };
}

/** Clear-sky AC power per hour, W: what the array gives under the Haurwitz clear sky. */
export function clearSkyPower(pv: PvModel, timeline: Timeline): Float64Array {
  const { geometry } = timeline;
  const plane = planeOfArray(geometry, decompose(geometry, geometry.clearGhiMean), pv.orientation);
  return plane.map((poa) => min(pv.maxPower, max(0, pv.clearSkyScale * poa)));
}

export interface WeatherPower {
  /** W/m² on the plane, NaN where the GHI is unknown. */
  plane: Float64Array;
  /** W, NaN where the GHI is unknown. */
  power: Float64Array;
}

/** AC power from hourly GHI (NaN where unknown) and air temperature, W. */
export function weatherPower(pv: PvModel, timeline: Timeline, ghi: Float64Array): WeatherPower {
  const { geometry, temperature } = timeline;
  const plane = planeOfArray(geometry, decompose(geometry, ghi), pv.orientation);
  const power = new Float64Array(timeline.hours);
  for (let hour = 0; hour < timeline.hours; hour++) {
    const poa = plane[hour];
    if (!isFiniteNumber(poa)) {
      power[hour] = NaN;
      continue;
    }
    let value: number;
    if (pv.withTemperature && isFiniteNumber(temperature[hour])) {
      const [a, b, c] = pv.withTemperature;
      value = a * poa + b * poa * temperature[hour] + c * poa * poa;
    } else if (pv.withoutTemperature) {
      const [a, c] = pv.withoutTemperature;
      value = a * poa + c * poa * poa;
    } else {
      value = pv.clearSkyScale * poa;
    }
    power[hour] = geometry.clearGhiMean[hour] > 0 ? min(pv.maxPower, max(0, value)) : 0;
  }
  return { plane, power };
}
