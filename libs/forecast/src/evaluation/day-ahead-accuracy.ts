/**
 * The accuracy of a source's day-ahead forecasts, as the product reports it
 * (docs/forecast-accuracy.md). The metrics are the ones of `./solar-accuracy`, which the
 * benchmark uses too; this file adds what a running source needs: which forecast is the
 * day-ahead one of a day, what is kept of it, and the scores per day and over many days.
 *
 * - Days are UTC days, as the forecast's daily points and the daily summaries count them.
 * - The day-ahead forecast of day D is the last one issued during D − 1 (UTC).
 * - Solar: over the daytime hours of D with a forecast, a measurement (the hour's mean) and a
 *   smart-persistence value, as `SOLAR_ACCURACY_DEFINITIONS` says; in W, and as a fraction of
 *   the installed capacity when the source has one.
 * - Load: RMSE and MAE in W over every hour of D with a measurement; skill against the load
 *   profile (the physics-only baseline's load, `baselineLoad`: the mean of the same hour over the
 *   14 days before, moved by half of how far the last 3 days' mean load is from the 14 days').
 * - Battery: MAE of the state of charge in percentage points over every hour of D with a
 *   measurement (the forecast's state of charge at the end of the hour against the hour's mean).
 * - Over several days, every scored hour of every day counts once (not a mean of daily scores).
 */

import { Forecast, Site, TrainedModel } from '../forecaster';
import { baselineSolar } from '../model/baseline';
import { readPayload } from '../model/model-payload';
import { clearSkyPower } from '../model/pv-model';
import { HOUR_MS } from '../model/pv-physics';
import { buildTimeline } from '../model/timeline';
import {
  ErrorStats,
  errorStats,
  isDaytimeHour,
  SOLAR_ACCURACY_DEFINITIONS,
  skillScore,
  smartPersistence,
  solarErrors,
} from './solar-accuracy';

const DAY_MS = 86_400_000;
/** A UTC day has 24 hours. */
export const DAY_HOURS = 24;

/**
 * Which model made a forecast: a trained model (`learned`), the baseline chosen over it by
 * validation (`baseline`), or the untrained physics-only forecast (`physics`).
 */
export type ForecastModelKind = 'learned' | 'baseline' | 'physics';

/**
 * The definitions the product's accuracy scores follow, one line each (a line starting with two
 * spaces continues the one before): the benchmark's, then what scoring a running source adds.
 */
export const DAY_AHEAD_ACCURACY_DEFINITIONS: readonly string[] = [
  ...SOLAR_ACCURACY_DEFINITIONS,
  'day: a UTC day; the day-ahead forecast of day D is the last forecast issued during D − 1 (UTC)',
  'a day whose day before has no clear-sky index has no smart persistence, and so no solar score',
  'without an installed capacity, solar errors are in W only (nRMSE and nMAE are null)',
  'physics: the untrained physics-only forecast, made from the same inputs at the same moment',
  'load RMSE / MAE (W) over every hour of D with a measured load; its skill is against the load',
  '  profile, the physics-only forecast’s load: the mean of the same hour over the 14 days before, moved by half',
  '  of how far the last 3 days’ mean load is from the 14 days’',
  'battery SoC MAE (percentage points) over every hour of D with a measured state of charge',
  '  (the forecast’s state at the end of the hour against the hour’s mean)',
  'overall: every scored hour of every scored day counts once (not a mean of daily figures)',
];

/** One hour of a kept day-ahead forecast. Powers in W, state of charge in %. */
export interface DayAheadHour {
  solarPower: number;
  loadPower: number;
  stateOfCharge: number;
  /** The physics-only baseline's forecast from the same inputs (`forecast` without a model). */
  physicsSolarPower: number;
  physicsLoadPower: number;
  /** The array's clear-sky power, as the forecasting model sees the array. */
  clearSkyPower: number;
  /** Whether the hour is a daytime hour (`isDaytimeHour`). */
  daytime: boolean;
}

/** What is kept of the day-ahead forecast of one UTC day. */
export interface DayAheadForecast {
  /** `YYYY-MM-DD`, the UTC day forecast. */
  date: string;
  /** 24 hours, from 00:00 UTC. */
  hours: DayAheadHour[];
  /** The array's clear-sky power (W) over the 24 hours of the day before, for smart persistence. */
  previousDayClearSky: number[];
}

/** The UTC day a forecast issued at `issuedAt` is the day-ahead forecast of: the next one. */
export function dayAheadDate(issuedAt: Date): string {
  const today = Math.floor(issuedAt.getTime() / DAY_MS) * DAY_MS;
  return new Date(today + DAY_MS).toISOString().slice(0, 10);
}

/**
 * Which model `forecast` serves with `model`, as one kind: `physics` when it cannot read the model
 * (none, another version, an unexpected shape), `learned` when the model holds trees for any part
 * (solar with or without weather, load), `baseline` when the hold-out chose the baseline for every
 * part (docs/forecasting.md). Read from the payload the forecast reads, not from what the model's
 * record says of itself.
 */
export function servedModelKind(model: TrainedModel | null): ForecastModelKind {
  const payload = readPayload(model);
  if (!payload) return 'physics';
  return Object.values(payload.models).some((learner) => learner !== null) ? 'learned' : 'baseline';
}

/**
 * The array's clear-sky power (W) and daytime flags over `hours` UTC hours from `start` (ms): with
 * a usable trained model, its array; else the physics-only baseline's (the installed orientation,
 * else 30° toward the equator; performance ratio 0.8, the installed capacity) under the clear sky.
 */
export function arrayClearSky(
  site: Site,
  model: TrainedModel | null,
  start: number,
  hours: number,
): { clearSkyPower: number[]; daytime: boolean[] } {
  const timeline = buildTimeline(site, [], [], start, start + hours * HOUR_MS);
  const pv = readPayload(model)?.pv;
  let power: Float64Array;
  if (pv) {
    power = clearSkyPower(pv, timeline);
  } else {
    timeline.shortwave.set(timeline.geometry.clearGhiMean);
    power = baselineSolar(site, timeline);
  }
  return {
    clearSkyPower: Array.from(power),
    daytime: Array.from(timeline.geometry.elevation, (elevation) => isDaytimeHour(elevation)),
  };
}

/**
 * What is kept of a forecast issued at `issuedAt`: the 24 hours of the next UTC day, of the served
 * forecast and of the physics-only one made from the same inputs, with the clear-sky references.
 * Null when the forecast does not cover that day hour by hour.
 */
export function dayAheadForecast(
  issuedAt: Date,
  served: Forecast,
  physics: Forecast,
  site: Site,
  model: TrainedModel | null,
): DayAheadForecast | null {
  const date = dayAheadDate(issuedAt);
  const dayStart = Date.parse(`${date}T00:00:00Z`);
  const byHour = (forecast: Forecast) =>
    new Map(forecast.hourly.map((point) => [Date.parse(point.timestamp), point]));
  const servedHours = byHour(served);
  const physicsHours = byHour(physics);
  const reference = arrayClearSky(site, model, dayStart - DAY_MS, 2 * DAY_HOURS);
  const hours: DayAheadHour[] = [];
  for (let hour = 0; hour < DAY_HOURS; hour++) {
    const at = dayStart + hour * HOUR_MS;
    const point = servedHours.get(at);
    const baseline = physicsHours.get(at);
    if (!point || !baseline) return null;
    hours.push({
      solarPower: point.solarPower,
      loadPower: point.loadPower,
      stateOfCharge: point.stateOfCharge,
      physicsSolarPower: baseline.solarPower,
      physicsLoadPower: baseline.loadPower,
      clearSkyPower: round(reference.clearSkyPower[DAY_HOURS + hour]),
      daytime: reference.daytime[DAY_HOURS + hour],
    });
  }
  return { date, hours, previousDayClearSky: reference.clearSkyPower.slice(0, DAY_HOURS).map(round) };
}

const round = (value: number) => Math.round(value * 10) / 10 + 0;

/** One measured UTC hour: the means of what the source sent (null: nothing of that field). */
export interface MeasuredHour {
  solarPower: number | null;
  loadPower: number | null;
  stateOfCharge: number | null;
}

export interface SolarScore {
  /** Hours scored. */
  hours: number;
  rmseW: number;
  maeW: number;
  /** RMSE / installed capacity, a fraction; null without a capacity. */
  nrmse: number | null;
  /** MAE / installed capacity, a fraction; null without a capacity. */
  nmae: number | null;
}

export interface LoadScore {
  hours: number;
  rmseW: number;
  maeW: number;
  /** Against the load profile (the physics-only forecast's load); null when that profile was perfect. */
  skillVsProfile: number | null;
}

export interface BatteryScore {
  hours: number;
  /** Percentage points. */
  socMae: number;
}

export interface SolarSkill {
  vsSmartPersistence: number | null;
  vsPhysics: number | null;
}

export interface AccuracyScore {
  solar: SolarScore | null;
  load: LoadScore | null;
  battery: BatteryScore | null;
  skill: SolarSkill;
}

export interface DayScore extends AccuracyScore {
  date: string;
}

type Pairs = Array<readonly [number, number]>;

/** The hour pairs behind one score, so that days pool into an overall one. */
interface ScoredPairs {
  solar: Pairs;
  smartPersistence: Pairs;
  physicsSolar: Pairs;
  load: Pairs;
  profileLoad: Pairs;
  stateOfCharge: Pairs;
}

const emptyPairs = (): ScoredPairs => ({
  solar: [],
  smartPersistence: [],
  physicsSolar: [],
  load: [],
  profileLoad: [],
  stateOfCharge: [],
});

const finite = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * Scores each day-ahead forecast against the measured hours (`measured(hourStartMs)`, undefined
 * for an hour without data; the day before is read too, for smart persistence). Days with no
 * scored hour at all are left out (a source measuring only solar, on a day without smart
 * persistence, has none); `overall` pools every scored hour. `capacityWatts` null or not
 * positive: solar errors in W only.
 */
export function scoreDayAheadForecasts(
  forecasts: readonly DayAheadForecast[],
  measured: (hourStart: number) => MeasuredHour | undefined,
  capacityWatts: number | null,
): { days: DayScore[]; overall: AccuracyScore } {
  const capacity = capacityWatts !== null && capacityWatts > 0 ? capacityWatts : null;
  const all = emptyPairs();
  const days: DayScore[] = [];
  for (const forecast of [...forecasts].sort((a, b) => a.date.localeCompare(b.date))) {
    const pairs = dayPairs(forecast, measured);
    const score = scorePairs(pairs, capacity);
    if (!score.solar && !score.load && !score.battery) continue;
    days.push({ date: forecast.date, ...score });
    for (const key of Object.keys(all) as Array<keyof ScoredPairs>) all[key].push(...pairs[key]);
  }
  return { days, overall: scorePairs(all, capacity) };
}

function dayPairs(
  forecast: DayAheadForecast,
  measured: (hourStart: number) => MeasuredHour | undefined,
): ScoredPairs {
  const dayStart = Date.parse(`${forecast.date}T00:00:00Z`);
  const solarAt = (hourStart: number) => {
    const value = measured(hourStart)?.solarPower;
    return finite(value) ? value : NaN;
  };
  const yesterday = Array.from({ length: DAY_HOURS }, (_, hour) =>
    solarAt(dayStart - DAY_MS + hour * HOUR_MS),
  );
  const persistence = smartPersistence(
    yesterday,
    forecast.previousDayClearSky,
    forecast.hours.map((hour) => hour.clearSkyPower),
  );
  const pairs = emptyPairs();
  forecast.hours.forEach((hour, index) => {
    const observed = measured(dayStart + index * HOUR_MS);
    if (!observed) return;
    const solar = observed.solarPower;
    // A forecast and its references are scored on the same hours: an hour missing one is left out.
    if (
      persistence &&
      hour.daytime &&
      finite(solar) &&
      finite(hour.solarPower) &&
      finite(persistence[index]) &&
      finite(hour.physicsSolarPower)
    ) {
      pairs.solar.push([hour.solarPower, solar]);
      pairs.smartPersistence.push([persistence[index], solar]);
      pairs.physicsSolar.push([hour.physicsSolarPower, solar]);
    }
    if (finite(observed.loadPower) && finite(hour.loadPower) && finite(hour.physicsLoadPower)) {
      pairs.load.push([hour.loadPower, observed.loadPower]);
      pairs.profileLoad.push([hour.physicsLoadPower, observed.loadPower]);
    }
    if (finite(observed.stateOfCharge) && finite(hour.stateOfCharge))
      pairs.stateOfCharge.push([hour.stateOfCharge, observed.stateOfCharge]);
  });
  return pairs;
}

function scorePairs(pairs: ScoredPairs, capacity: number | null): AccuracyScore {
  const solar = errorStats(pairs.solar);
  const normalised = capacity !== null ? solarErrors(pairs.solar, capacity) : null;
  const load = errorStats(pairs.load);
  const battery = errorStats(pairs.stateOfCharge);
  return {
    solar: solar && {
      hours: solar.count,
      rmseW: solar.rmse,
      maeW: solar.mae,
      nrmse: normalised?.nrmse ?? null,
      nmae: normalised?.nmae ?? null,
    },
    load: load && {
      hours: load.count,
      rmseW: load.rmse,
      maeW: load.mae,
      skillVsProfile: skillScore(load, errorStats(pairs.profileLoad)),
    },
    battery: battery && { hours: battery.count, socMae: battery.mae },
    skill: {
      vsSmartPersistence: skillOrNull(solar, errorStats(pairs.smartPersistence)),
      vsPhysics: skillOrNull(solar, errorStats(pairs.physicsSolar)),
    },
  };
}

function skillOrNull(forecast: ErrorStats | null, reference: ErrorStats | null): number | null {
  return forecast ? skillScore(forecast, reference) : null;
}
