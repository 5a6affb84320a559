import {
  ModelMetrics,
  OrientationSource,
  ServedChoice,
  ServedModel,
  TrainedModel,
  TrainingInput,
} from '../forecaster';
import { baselineLoad, DEFAULT_CAPACITY_WATTS, loadLevel } from './baseline';
import { estimateBatteryCapacity } from './battery';
import {
  FEATURE_NAMES,
  FeatureContext,
  featureContext,
  featureRows,
  FeatureSet,
  recentClearSkyIndex,
} from './features';
import { BoostedModel, BoostingParams, Dataset, fitBoosted, predictBoosted } from './gradient-boosting';
import { MODEL_VERSION, packedLearners, StoredForecastPayload, ValidationSummary } from './model-payload';
import { fitPvModel, PvModel } from './pv-model';
import { HOUR_MS } from './pv-physics';
import { buildTimeline, historySpan, hourFloor } from './timeline';

/**
 * Training, from hourly telemetry and the weather of the same hours:
 *
 * 1. the physical model: the array's orientation inferred from clear days, then the clear-sky
 *    scale and the coefficients from plane irradiance (and temperature) to power (`pv-model.ts`);
 * 2. up to four boosted-tree models: solar with weather (the residual of the physical model),
 *    solar without weather (the clear-sky index of power, weighted by clear-sky power squared so
 *    the loss is the squared error in W), load with and without weather (the correction to the
 *    same hour's 14-day mean, in units of the last week's mean load, so it carries across
 *    seasons and households).
 *
 * Training rows replay forecasts inside the history: every observed hour is a target twice, once
 * from an origin 1–24 h before it and once from 25–168 h before (the horizons a 7-day forecast
 * has), with origins spread by a low-discrepancy sequence, never at random, so training is
 * deterministic. The targets of the last 15 % of each model's hours (from the start of a UTC day)
 * are held out: early stopping picks the number of trees on them, the metrics are measured on
 * their day-ahead rows (daylight only for solar), and on those same rows the trees must beat
 * their baseline (the physical model for solar with weather, smart persistence without, the load
 * profile): if they do, they are refitted on all rows with that number of trees and served, else
 * dropped and the baseline is served (`servedModel`, docs/forecasting.md).
 */

/**
 * The history a model is trained on: the last year, so that every season is in it. A quarter
 * (the longest aggregated range) served worse on measured data, and a model trained in one season
 * forecasts the next (docs/performance.md, "Forecast accuracy").
 */
export const TRAINING_DAYS = 365;

/** Where the served orientation came from, as the model info names it. */
const ORIENTATION_SOURCES: Record<PvModel['orientationSource'], OrientationSource> = {
  installed: 'installed',
  weather: 'fitted',
  'clear-sky': 'fitted',
  default: 'assumed',
};

const VALIDATION_SHARE = 0.15;
const DAY_MS = 86_400_000;
/** Fewer usable hours than this and a model is not trained (its part of the forecast stays physical). */
export const MIN_TARGET_HOURS = 240;
/** Nor with fewer hours than this to hold out. */
export const MIN_VALIDATION_HOURS = 24;
/**
 * The load trees and the profile are close rivals (on the Konstanz household 423 W against 426 W of
 * hold-out RMSE): a hold-out of a few days cannot tell them apart, and trees fitted on a young
 * source's first weeks served worse than the profile through the months after. On a hold-out of
 * fewer days than this the load trees must win clearly to be served (`chooseServed`).
 */
const MIN_LOAD_HOLD_OUT_DAYS = 21;
const PERFORMANCE_RATIO = 0.8;

/** Household load is mostly noise around its profile: small steps, shallow trees, big leaves. */
const LOAD_PARAMS: Partial<BoostingParams> = {
  maxDepth: 3,
  minLeafRows: 100,
  lambda: 20,
  learningRate: 0.03,
  rounds: 800,
  earlyStoppingRounds: 100,
};

/** Shallower trees and bigger leaves where the target is noisier (no weather, household load). */
const PARAMS: Record<FeatureSet, Partial<BoostingParams>> = {
  solarWeather: { maxDepth: 5, minLeafRows: 30 },
  solarHistory: { maxDepth: 4, minLeafRows: 40 },
  loadWeather: LOAD_PARAMS,
  loadHistory: LOAD_PARAMS,
};

const GOLDEN = 0.6180339887498949;
const SQRT2 = 0.4142135623730951;
const SQRT3 = 0.7320508075688772;
const fraction = (value: number) => value - Math.floor(value);

interface Replay {
  targets: Int32Array;
  origins: Int32Array;
  /** 1 where the weather-based performance feature is hidden, so the trees learn to do without it. */
  masked: Uint8Array;
  /** 1 for the day-ahead (1–24 h) replay of a target. */
  dayAhead: Uint8Array;
  /** Rows before this index train; the rest are the hold-out. */
  split: number;
}

/**
 * How many of the (chronological) candidate hours train: the hold-out is the last `share` of them,
 * moved back to the start of the day its first hour falls on (`dayOf`), so no day is split.
 */
export function trainingCount(
  candidates: readonly number[],
  share: number,
  dayOf: (hour: number) => number,
): number {
  let count = Math.floor(candidates.length * (1 - share));
  if (count <= 0 || count >= candidates.length) return count;
  const day = dayOf(candidates[count]);
  while (count > 0 && dayOf(candidates[count - 1]) === day) count--;
  return count;
}

function replay(candidates: readonly number[], trainingTargets: number): Replay {
  const rows = candidates.length * 2;
  const targets = new Int32Array(rows);
  const origins = new Int32Array(rows);
  const masked = new Uint8Array(rows);
  const dayAhead = new Uint8Array(rows);
  candidates.forEach((target, index) => {
    const n = index + 1;
    const short = 1 + Math.floor(24 * fraction(n * GOLDEN));
    const long = 25 + Math.floor(144 * fraction(n * SQRT2));
    for (const [offset, horizon] of [
      [0, short],
      [1, long],
    ]) {
      const row = 2 * index + offset;
      targets[row] = target;
      origins[row] = target - horizon + 1;
      dayAhead[row] = offset === 0 ? 1 : 0;
      masked[row] = fraction(n * SQRT3 + offset * 0.5) < 1 / 3 ? 1 : 0;
    }
  });
  return { targets, origins, masked, dayAhead, split: 2 * trainingTargets };
}

interface LearnerSpec {
  set: FeatureSet;
  candidates: number[];
  /** The tree's target for an hour forecast from an origin. */
  target: (hour: number, origin: number) => number;
  weight?: (hour: number) => number;
  /** Tree output → forecast in W. */
  toPower: (hour: number, output: number, origin: number) => number;
  /** Observed value in W. */
  observed: (hour: number) => number;
  /** What the trees improve on, in W. */
  reference: (hour: number, origin: number) => number;
  /** Days the hold-out must span for the trees to be served at all (else the baseline is). */
  minHoldOutDays?: number;
}

function slice(values: Float64Array, width: number, from: number, to: number): Float64Array {
  return values.subarray(from * width, to * width);
}

function fitLearner(
  context: FeatureContext,
  spec: LearnerSpec,
): { model: BoostedModel | null; summary: ValidationSummary } | null {
  const dayOf = (hour: number) => Math.floor((context.timeline.start + hour * HOUR_MS) / DAY_MS);
  const trainingTargets = trainingCount(spec.candidates, VALIDATION_SHARE, dayOf);
  const validationTargets = spec.candidates.length - trainingTargets;
  if (
    spec.candidates.length < MIN_TARGET_HOURS ||
    validationTargets < MIN_VALIDATION_HOURS ||
    trainingTargets <= 0
  )
    return null;
  const rows = replay(spec.candidates, trainingTargets);
  const width = FEATURE_NAMES[spec.set].length;
  const values = featureRows(context, spec.set, rows.targets, rows.origins, { maskPerformance: rows.masked });
  const targets = Float64Array.from(rows.targets, (hour, row) => spec.target(hour, rows.origins[row]));
  const weight = spec.weight;
  const weights = weight ? Float64Array.from(rows.targets, (hour) => weight(hour)) : undefined;
  const dataset = (from: number, to: number): Dataset => ({
    rowCount: to - from,
    featureCount: width,
    values: slice(values, width, from, to),
    targets: targets.subarray(from, to),
    weights: weights?.subarray(from, to),
  });
  const total = rows.targets.length;
  const params = PARAMS[spec.set];
  const first = fitBoosted(dataset(0, rows.split), dataset(rows.split, total), params);

  let absolute = 0;
  let squared = 0;
  let referenceAbsolute = 0;
  let referenceSquared = 0;
  let sum = 0;
  let sumSquares = 0;
  let count = 0;
  // Per hold-out day: the trees' squared error less the baseline's.
  const dailyDifference = new Map<number, number>();
  for (let row = rows.split; row < total; row++) {
    if (!rows.dayAhead[row]) continue;
    const hour = rows.targets[row];
    const predicted = spec.toPower(hour, predictBoosted(first.model, values, row * width), rows.origins[row]);
    const actual = spec.observed(hour);
    const error = predicted - actual;
    absolute += Math.abs(error);
    squared += error * error;
    const referenceError = spec.reference(hour, rows.origins[row]) - actual;
    referenceAbsolute += Math.abs(referenceError);
    referenceSquared += referenceError * referenceError;
    const day = dayOf(hour);
    dailyDifference.set(
      day,
      (dailyDifference.get(day) ?? 0) + error * error - referenceError * referenceError,
    );
    sum += actual;
    sumSquares += actual * actual;
    count++;
  }
  const variance = count > 0 ? sumSquares - (sum * sum) / count : 0;
  const rounds = Math.max(1, first.bestRounds);
  // Every hold-out hour has one day-ahead row: the days of the differences are the hold-out's.
  const short = dailyDifference.size < (spec.minHoldOutDays ?? 0);
  const served = chooseServed(squared, referenceSquared, count, short ? [...dailyDifference.values()] : null);
  // A model that lost to its baseline is not refitted: it would not be served.
  const final = served === 'learned' ? fitBoosted(dataset(0, total), null, { ...params, rounds }) : null;
  return {
    model: final?.model ?? null,
    summary: {
      trainRows: rows.split,
      validationRows: count,
      rounds,
      mae: count > 0 ? absolute / count : 0,
      rmse: count > 0 ? Math.sqrt(squared / count) : 0,
      r2: variance > 0 ? 1 - squared / variance : 0,
      referenceMae: count > 0 ? referenceAbsolute / count : 0,
      referenceRmse: count > 0 ? Math.sqrt(referenceSquared / count) : 0,
      referenceR2: variance > 0 ? 1 - referenceSquared / variance : 0,
      served,
    },
  };
}

/**
 * The model choice: the trees are served only when their squared error on the hold-out's
 * day-ahead rows is below the baseline's on the same rows (and there are such rows). On a hold-out
 * too short to tell close rivals apart, `dailyDifferences` (per day, the trees' squared error less
 * the baseline's) must also show a clear win: a mean below zero by at least twice its standard
 * error.
 */
export function chooseServed(
  modelSquaredError: number,
  baselineSquaredError: number,
  rows: number,
  dailyDifferences: readonly number[] | null = null,
): 'learned' | 'baseline' {
  if (!(rows > 0 && modelSquaredError < baselineSquaredError)) return 'baseline';
  return dailyDifferences === null || clearlyBelowZero(dailyDifferences) ? 'learned' : 'baseline';
}

function clearlyBelowZero(values: readonly number[]): boolean {
  const n = values.length;
  if (n < 2) return false;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  return mean < -2 * Math.sqrt(variance / n);
}

/**
 * The hold-out summary that describes the load a forecast serves. Where the trees with weather lost
 * and those without won, the latter serve every hour, weather or not (`predict.ts`), so their
 * summary does; otherwise the one with weather, as for solar (its baseline figures are the
 * profile's when both lost).
 */
export function servedLoadSummary(
  withWeather: ValidationSummary | null,
  withoutWeather: ValidationSummary | null,
): ValidationSummary | null {
  if (withWeather?.served !== 'learned' && withoutWeather?.served === 'learned') return withoutWeather;
  return withWeather ?? withoutWeather;
}

function emptyMetrics(): ModelMetrics {
  return {
    mae: 0,
    rmse: 0,
    r2: 0,
    solar_mae: 0,
    solar_rmse: 0,
    solar_r2: 0,
    load_mae: 0,
    load_rmse: 0,
    load_r2: 0,
  };
}

export function trainForecaster(input: TrainingInput): TrainedModel {
  const started = Date.now();
  const report = (percent: number) => input.onProgress?.(Math.round(percent));
  report(0);
  const { site } = input;
  const nowHour = hourFloor(input.now.getTime());
  const past = input.history.filter((observation) => observation.hour.getTime() <= nowHour);
  const span = historySpan(past);
  const start = span ? span.first : nowHour;
  const end = span ? span.last + HOUR_MS : nowHour;
  const timeline = buildTimeline(site, past, input.weather, start, end);
  report(5);

  let maxObserved = 0;
  let dataPointsUsed = 0;
  let minStateOfCharge = Infinity;
  let stateOfChargeHours = 0;
  for (let hour = 0; hour < timeline.hours; hour++) {
    const solar = timeline.solar[hour];
    if (Number.isFinite(solar)) maxObserved = Math.max(maxObserved, solar);
    if (Number.isFinite(timeline.stateOfCharge[hour])) {
      minStateOfCharge = Math.min(minStateOfCharge, timeline.stateOfCharge[hour]);
      stateOfChargeHours++;
    }
    if (
      Number.isFinite(solar) ||
      Number.isFinite(timeline.load[hour]) ||
      Number.isFinite(timeline.stateOfCharge[hour])
    )
      dataPointsUsed++;
  }
  const siteCapacity = site.capacityWatts && site.capacityWatts > 0 ? site.capacityWatts : null;
  const capacity = siteCapacity ?? (maxObserved > 0 ? maxObserved : DEFAULT_CAPACITY_WATTS);
  const maxPower = siteCapacity ?? (maxObserved > 0 ? 1.1 * maxObserved : DEFAULT_CAPACITY_WATTS);

  // Without any solar history: the installed (else the default) orientation and the nominal scale.
  const pv = fitPvModel(timeline, maxPower, (capacity * PERFORMANCE_RATIO) / 1000, site.orientation);
  report(15);

  const models: Record<FeatureSet, BoostedModel | null> = {
    solarHistory: null,
    solarWeather: null,
    loadHistory: null,
    loadWeather: null,
  };
  const validation: Record<FeatureSet, ValidationSummary | null> = {
    solarHistory: null,
    solarWeather: null,
    loadHistory: null,
    loadWeather: null,
  };

  const context = featureContext(timeline, pv, capacity);
  const { solar, load, temperature, geometry } = timeline;
  const clamp = (power: number) => Math.min(pv.maxPower, Math.max(0, power));
  const solarHours: number[] = [];
  const loadHours: number[] = [];
  for (let hour = 0; hour < timeline.hours; hour++) {
    if (Number.isFinite(solar[hour]) && geometry.clearGhiMean[hour] > 0 && context.clearPower[hour] > 0)
      solarHours.push(hour);
    if (Number.isFinite(load[hour])) loadHours.push(hour);
  }
  // The two load learners differ in their features and hours only.
  const loadLearner = (set: FeatureSet, candidates: number[]): LearnerSpec => ({
    set,
    candidates,
    target: (hour, origin) =>
      (load[hour] - baselineLoad(timeline, hour, origin)) / loadLevel(context, origin),
    toPower: (hour, output, origin) =>
      Math.max(0, baselineLoad(timeline, hour, origin) + loadLevel(context, origin) * output),
    observed: (hour) => load[hour],
    reference: (hour, origin) => baselineLoad(timeline, hour, origin),
    minHoldOutDays: MIN_LOAD_HOLD_OUT_DAYS,
  });
  const learners: LearnerSpec[] = [
    {
      set: 'solarWeather',
      candidates: solarHours.filter((hour) => Number.isFinite(context.physicalPower[hour])),
      target: (hour) => (solar[hour] - context.physicalPower[hour]) / capacity,
      toPower: (hour, output) => clamp(context.physicalPower[hour] + capacity * output),
      observed: (hour) => solar[hour],
      reference: (hour) => context.physicalPower[hour],
    },
    {
      set: 'solarHistory',
      candidates: solarHours,
      target: (hour) => Math.min(2, solar[hour] / context.clearPower[hour]),
      weight: (hour) => (context.clearPower[hour] / capacity) ** 2,
      toPower: (hour, output) => clamp(context.clearPower[hour] * output),
      observed: (hour) => solar[hour],
      reference: (hour, origin) => clamp(context.clearPower[hour] * recentClearSkyIndex(context, origin)),
    },
    loadLearner(
      'loadWeather',
      loadHours.filter((hour) => Number.isFinite(temperature[hour])),
    ),
    loadLearner('loadHistory', loadHours),
  ];
  learners.forEach((spec, index) => {
    const fitted = fitLearner(context, spec);
    if (fitted) {
      models[spec.set] = fitted.model;
      validation[spec.set] = fitted.summary;
    }
    report(15 + (80 * (index + 1)) / learners.length);
  });

  // The metrics are the served forecast's on the hold-out: the trees' or, where they lost, the baseline's.
  const metrics = emptyMetrics();
  const solarSummary = validation.solarWeather ?? validation.solarHistory;
  const loadSummary = servedLoadSummary(validation.loadWeather, validation.loadHistory);
  if (solarSummary) {
    const learned = solarSummary.served === 'learned';
    metrics.mae = metrics.solar_mae = learned ? solarSummary.mae : solarSummary.referenceMae;
    metrics.rmse = metrics.solar_rmse = learned ? solarSummary.rmse : solarSummary.referenceRmse;
    metrics.r2 = metrics.solar_r2 = learned ? solarSummary.r2 : solarSummary.referenceR2;
  }
  if (loadSummary) {
    const learned = loadSummary.served === 'learned';
    metrics.load_mae = learned ? loadSummary.mae : loadSummary.referenceMae;
    metrics.load_rmse = learned ? loadSummary.rmse : loadSummary.referenceRmse;
    metrics.load_r2 = learned ? loadSummary.r2 : loadSummary.referenceR2;
  }
  const served = (set: FeatureSet): ServedChoice => (models[set] ? 'learned' : 'baseline');
  const servedModel: ServedModel = {
    solar: served('solarWeather'),
    solarWithoutWeather: served('solarHistory'),
    // A forecast's load uses the weather trees, else the history-only ones, else the profile.
    load: models.loadWeather || models.loadHistory ? 'learned' : 'baseline',
    orientation: {
      tilt: pv.orientation.tilt,
      azimuth: pv.orientation.azimuth,
      source: ORIENTATION_SOURCES[pv.orientationSource],
    },
  };

  const payload: StoredForecastPayload = {
    kind: 'pv-physics+gradient-boosting',
    capacityWatts: capacity,
    pv,
    models: packedLearners(models),
    featureNames: FEATURE_NAMES,
    battery: {
      capacityWh: estimateBatteryCapacity(timeline),
      minStateOfCharge: stateOfChargeHours >= 24 ? minStateOfCharge : null,
    },
    training: {
      from: new Date(start).toISOString(),
      to: new Date(end).toISOString(),
      hours: timeline.hours,
      seconds: (Date.now() - started) / 1000,
      validation,
    },
  };
  report(100);
  return {
    version: MODEL_VERSION,
    trainedAt: input.now.toISOString(),
    dataPointsUsed,
    metrics,
    servedModel,
    payload,
  };
}
