import type {
  HourlyObservation,
  HourlyWeather,
  Site,
  TrainedModel,
} from '../../libs/forecast/src/forecaster';
import { forecast, trainForecaster } from '../../libs/forecast/src/model';
import { readPayload } from '../../libs/forecast/src/model/model-payload';
import { clearSkyPower, weatherPower } from '../../libs/forecast/src/model/pv-model';
import { buildTimeline } from '../../libs/forecast/src/model/timeline';
import { HISTORY_DAYS } from '../../libs/forecast/src/model/predict';
import { TRAINING_DAYS } from '../../libs/forecast/src/model/train';
import { retrainingDue } from '../../libs/forecast/src/model/retraining';
import { isDaytimeHour, smartPersistence } from '../../libs/forecast/src/evaluation';
import type { HourlySeries } from './data-files';
import { localDate, localDateStart, shiftDate } from './time-zones';

/**
 * Replays a site's history day by day through the production code: `trainForecaster` on the
 * training range, at most its last `TRAINING_DAYS` as the product's training job reads (and again,
 * on the days before, as `retrain` says), then
 * `forecast` from each scored local midnight with the 15 days of history before it, keeping the
 * 24 (23, 25) hours of that local day. The comparisons are computed from the same data: the
 * physics-only baseline (`forecast` without a model), the fitted physical model alone, smart
 * persistence (as `libs/forecast/src/evaluation` defines it) and same-as-yesterday.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Same-as-yesterday load looks back up to this many days for the last day that has the hour. */
const PERSISTENCE_DAYS = 7;

export type Setting = 'weather' | 'history';

export interface SiteData {
  name: string;
  site: Site;
  timeZone: string;
  solar: HourlySeries | null;
  load: HourlySeries | null;
  ghi: HourlySeries | null;
  temperature: HourlySeries | null;
  train: [string, string];
  score: [string, string];
  retrain: Retrain;
}

/**
 * When the replay trains again: never; at the start of every scored month; or as the product's
 * scheduled job does (`retrainingDue`, libs/forecast's `RETRAINING_RULE`), checked at each scored
 * day's midnight.
 */
export type Retrain = 'none' | 'monthly' | 'product';

/** One scored hour. Powers in W; NaN where a forecast or observation does not exist (never printed). */
export interface ScoredHour {
  hour: number;
  /** The local day, `YYYY-MM-DD`. */
  date: string;
  /** `YYYY-MM` of the local day. */
  month: string;
  daylight: boolean;
  solar: number;
  load: number;
  /** Per setting: the model's forecast. */
  modelSolar: Record<Setting, number>;
  modelLoad: Record<Setting, number>;
  /** Per setting: `forecast` with no model. */
  baselineSolar: Record<Setting, number>;
  baselineLoad: Record<Setting, number>;
  /** The weather-driven physical model of the weather-trained model, without its trees. */
  fittedPhysics: number;
  smartPersistence: number;
  /** The array's clear-sky power that smart persistence scales (NaN without a model's array). */
  clearSky: number;
  sameAsYesterday: number;
}

export interface TrainingRun {
  setting: Setting;
  from: string;
  to: string;
  seconds: number;
  hours: number;
  dataPointsUsed: number;
  /** The midnight it was trained at: the end of its days. */
  trainedAt: Date;
  model: TrainedModel;
}

export interface ReplayResult {
  hours: ScoredHour[];
  trainings: TrainingRun[];
  settings: Setting[];
}

function observations(data: SiteData, from: number, to: number): HourlyObservation[] {
  const out: HourlyObservation[] = [];
  for (let hour = from; hour < to; hour += HOUR_MS) {
    const solar = data.solar?.get(hour);
    const load = data.load?.get(hour);
    if (solar === undefined && load === undefined) continue;
    out.push({
      hour: new Date(hour),
      solarPower: solar ?? null,
      loadPower: load ?? null,
      stateOfCharge: null,
    });
  }
  return out;
}

function weatherRows(data: SiteData, from: number, to: number): HourlyWeather[] {
  if (!data.ghi) return [];
  const out: HourlyWeather[] = [];
  for (let hour = from; hour < to; hour += HOUR_MS) {
    const ghi = data.ghi.get(hour);
    if (ghi === undefined) continue;
    out.push({
      hour: new Date(hour),
      temperature: data.temperature?.get(hour) ?? null,
      shortwaveRadiation: ghi,
      cloudCover: null,
      weatherCode: null,
      uvIndex: null,
      precipitation: null,
    });
  }
  return out;
}

function localDates(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let day = Date.parse(`${from}T00:00:00Z`); day <= Date.parse(`${to}T00:00:00Z`); day += DAY_MS) {
    dates.push(new Date(day).toISOString().slice(0, 10));
  }
  return dates;
}

/** The last value at the same hour of a previous day (1–7 days back), with how many days back. */
function previousDay(series: HourlySeries | null, hour: number): { value: number; days: number } | null {
  if (!series) return null;
  for (let days = 1; days <= PERSISTENCE_DAYS; days++) {
    const value = series.get(hour - days * DAY_MS);
    if (value !== undefined) return { value, days };
  }
  return null;
}

export function replaySite(data: SiteData, log: (line: string) => void): ReplayResult {
  const settings: Setting[] = data.ghi ? ['weather', 'history'] : ['history'];
  const trainStart = localDateStart(data.train[0], data.timeZone);
  const trainEnd = localDateStart(data.train[1], data.timeZone) + DAY_MS;
  const trainings: TrainingRun[] = [];
  const models: Partial<Record<Setting, TrainedModel>> = {};
  const train = (until: number) => {
    for (const setting of settings) {
      const from = Math.max(trainStart, until - TRAINING_DAYS * DAY_MS);
      const history = observations(data, from, until);
      const weather = setting === 'weather' ? weatherRows(data, from, until) : [];
      const started = process.hrtime.bigint();
      const model = trainForecaster({ site: data.site, history, weather, now: new Date(until) });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      models[setting] = model;
      trainings.push({
        setting,
        from: localDate(from, data.timeZone),
        to: localDate(until - 1, data.timeZone),
        seconds,
        hours: history.length,
        dataPointsUsed: model.dataPointsUsed,
        trainedAt: new Date(until),
        model,
      });
      log(
        `  trained ${setting.padEnd(7)} on ${history.length} h before ${localDate(until, data.timeZone)}: ${seconds.toFixed(2)} s`,
      );
    }
  };
  train(trainEnd);

  const hours: ScoredHour[] = [];
  let lastMonth = '';
  for (const date of localDates(data.score[0], data.score[1])) {
    const origin = localDateStart(date, data.timeZone);
    const next = localDateStart(shiftDate(date, 1), data.timeZone);
    const month = date.slice(0, 7);
    if (data.retrain === 'monthly' && lastMonth !== '' && month !== lastMonth) train(origin);
    const last = trainings.at(-1);
    if (
      data.retrain === 'product' &&
      last &&
      retrainingDue(last.trainedAt, last.dataPointsUsed, new Date(origin))
    )
      train(origin);
    lastMonth = month;
    const historyFrom = origin - HISTORY_DAYS * DAY_MS;
    const history = observations(data, historyFrom, origin);
    const scoredHours = Math.round((next - origin) / HOUR_MS);
    const forecasts: Partial<Record<Setting, ReturnType<typeof forecast>>> = {};
    const baselines: Partial<Record<Setting, ReturnType<typeof forecast>>> = {};
    for (const setting of settings) {
      const weather = setting === 'weather' ? weatherRows(data, historyFrom, origin + 7 * DAY_MS) : [];
      const input = { site: data.site, history, weather, now: new Date(origin) };
      forecasts[setting] = forecast({ ...input, model: models[setting] ?? null });
      baselines[setting] = forecast({ ...input, model: null });
    }

    // Clear-sky power of the array as the history-only model sees it (orientation from training
    // data only), over yesterday and today, for smart persistence; and the fitted physical model.
    const reference = readPayload(models.history ?? null) ?? readPayload(models.weather ?? null);
    const yesterday = localDateStart(shiftDate(date, -1), data.timeZone);
    const timeline = buildTimeline(data.site, [], weatherRows(data, yesterday, next), yesterday, next);
    const todaySlot = Math.round((origin - yesterday) / HOUR_MS);
    const clear = reference ? clearSkyPower(reference.pv, timeline) : null;
    const persistence =
      clear && data.solar
        ? smartPersistence(
            Array.from(
              { length: todaySlot },
              (_, slot) => data.solar!.get(yesterday + slot * HOUR_MS) ?? NaN,
            ),
            clear.subarray(0, todaySlot),
            clear.subarray(todaySlot),
          )
        : null;
    const weatherPayload = readPayload(models.weather ?? null);
    const physics = weatherPayload
      ? weatherPower(weatherPayload.pv, timeline, timeline.shortwave).power
      : null;

    for (let index = 0; index < scoredHours; index++) {
      const hour = origin + index * HOUR_MS;
      const slot = todaySlot + index;
      const pick = (
        record: Partial<Record<Setting, ReturnType<typeof forecast>>>,
        key: 'solarPower' | 'loadPower',
      ) =>
        Object.fromEntries(
          (['weather', 'history'] as const).map((setting) => [
            setting,
            record[setting]?.hourly[index]?.[key] ?? NaN,
          ]),
        ) as Record<Setting, number>;
      hours.push({
        hour,
        date,
        month,
        daylight: isDaytimeHour(timeline.geometry.elevation[slot]),
        solar: data.solar?.get(hour) ?? NaN,
        load: data.load?.get(hour) ?? NaN,
        modelSolar: pick(forecasts, 'solarPower'),
        modelLoad: pick(forecasts, 'loadPower'),
        baselineSolar: pick(baselines, 'solarPower'),
        baselineLoad: pick(baselines, 'loadPower'),
        fittedPhysics: physics ? physics[slot] : NaN,
        smartPersistence: persistence?.[index] ?? NaN,
        clearSky: clear ? clear[slot] : NaN,
        sameAsYesterday: previousDay(data.load, hour)?.value ?? NaN,
      });
    }
  }
  return { hours, trainings, settings };
}

export interface TrainingTiming {
  setting: Setting;
  from: string;
  to: string;
  hours: number;
  seconds: number;
  /** Resident set size after training, MiB. */
  rssMiB: number;
}

/** Trains once per setting on `days` days from the start of the training range, only to time it. */
export function timeTraining(data: SiteData, days: number): TrainingTiming[] {
  const from = localDateStart(data.train[0], data.timeZone);
  const to = from + days * DAY_MS;
  return (data.ghi ? (['weather', 'history'] as const) : (['history'] as const)).map((setting) => {
    const history = observations(data, from, to);
    const weather = setting === 'weather' ? weatherRows(data, from, to) : [];
    const started = process.hrtime.bigint();
    trainForecaster({ site: data.site, history, weather, now: new Date(to) });
    return {
      setting,
      from: new Date(from).toISOString().slice(0, 10),
      to: new Date(to - 1).toISOString().slice(0, 10),
      hours: history.length,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    };
  });
}
