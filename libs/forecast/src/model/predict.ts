import {
  DailyForecastPoint,
  Forecast,
  ForecastInput,
  ForecastWithPhysics,
  HourlyForecastPoint,
} from '../forecaster';
import { baselineLoad, baselineSolar, loadLevel } from './baseline';
import { DEFAULT_BATTERY_CAPACITY_WH, DEFAULT_STATE_OF_CHARGE, simulateBattery } from './battery';
import { FeatureContext, featureContext, featureRows, FeatureSet, recentClearSkyIndex } from './features';
import { predictBoosted } from './gradient-boosting';
import { ForecastPayload, readPayload } from './model-payload';
import { HOUR_MS } from './pv-physics';
import { buildTimeline, Timeline } from './timeline';

/**
 * A 7-day forecast: 168 hourly points from the first full UTC hour at or after `now` (a forecast
 * made at 12:00:00.000 starts at 12:00, one made a millisecond later at 13:00), and 7 daily points
 * for the UTC dates of the first 7 of those days. The first date holds only the forecast hours
 * (the rest of today when `now` is not midnight UTC); hours falling on an eighth date are in the
 * hourly series only. Each daily energy is the sum of that date's hourly energies.
 *
 * Solar: zero whenever the clear sky is dark. With a trained model, the hour's weather (shortwave
 * radiation, or the clear sky dimmed by cloud cover or weather code) goes through the physical
 * model and the weather trees add their correction; hours without weather use the clear-sky
 * power times the clear-sky index the history-only trees expect. Without a usable model, the
 * physics-only baseline (`baseline.ts`). Bounded by 0 and the inverter's limit.
 *
 * State of charge: the energy balance from the last observed state of charge (50 % when the
 * history has none), with the site's battery capacity, else the one estimated in training, else
 * 10 kWh; at the end of each hour, within 0–100 % (and not below the lowest level seen).
 */

export const FORECAST_HOURS = 168;
export const FORECAST_DAYS = 7;
/** Days of history before the first forecast hour that the features read; older history is ignored. */
export const HISTORY_DAYS = 15;

const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor + 0;
};

export function forecast(input: ForecastInput): Forecast {
  return servedForecast(input, prepare(input), readPayload(input.model));
}

/**
 * `forecast`, and beside it the physics-only forecast of the same input, from one timeline: the
 * day-ahead scores compare the two (docs/forecast-accuracy.md).
 */
export function forecastWithPhysics(input: ForecastInput): ForecastWithPhysics {
  const prepared = prepare(input);
  const payload = readPayload(input.model);
  return {
    forecast: servedForecast(input, prepared, payload),
    physics: payload ? servedForecast(input, prepared, null) : null,
  };
}

/** The forecast hours and the timeline from the history before them to their end: model-independent. */
interface Prepared {
  /** Start of the first forecast hour, ms. */
  first: number;
  /** Index of the first forecast hour in the timeline. */
  origin: number;
  hours: number[];
  timeline: Timeline;
}

function prepare(input: ForecastInput): Prepared {
  const first = Math.ceil(input.now.getTime() / HOUR_MS) * HOUR_MS;
  const origin = HISTORY_DAYS * 24;
  const start = first - origin * HOUR_MS;
  const timeline = buildTimeline(
    input.site,
    input.history.filter((observation) => observation.hour.getTime() < first),
    input.weather,
    start,
    first + FORECAST_HOURS * HOUR_MS,
  );
  const hours = Array.from({ length: FORECAST_HOURS }, (_, index) => origin + index);
  return { first, origin, hours, timeline };
}

/** The forecast of `payload` (null: the physics-only baseline) on a prepared timeline. */
function servedForecast(input: ForecastInput, prepared: Prepared, payload: ForecastPayload | null): Forecast {
  const { first, origin, hours, timeline } = prepared;
  const context = payload ? featureContext(timeline, payload.pv, payload.capacityWatts) : null;
  const solar =
    payload && context
      ? modelSolar(payload, context, hours, origin)
      : baselineSolarAt(input, timeline, hours);
  const load = hours.map((hour) =>
    payload && context ? modelLoad(payload, context, hour, origin) : baselineLoad(timeline, hour, origin),
  );
  const battery = batteryFor(input, payload, timeline, origin);
  const run = simulateBattery(solar, load, battery);

  const hourly: HourlyForecastPoint[] = hours.map((hour, index) => {
    const solarPower = round(solar[index], 1);
    const loadPower = round(load[index], 1);
    return {
      timestamp: new Date(timeline.start + hour * HOUR_MS).toISOString(),
      solarPower,
      loadPower,
      stateOfCharge: round(run.stateOfCharge[index], 2),
      energyProduced: round(solarPower / 1000, 4),
      energyConsumed: round(loadPower / 1000, 4),
    };
  });

  const daily: DailyForecastPoint[] = [];
  const firstDate = Date.UTC(
    new Date(first).getUTCFullYear(),
    new Date(first).getUTCMonth(),
    new Date(first).getUTCDate(),
  );
  for (let day = 0; day < FORECAST_DAYS; day++) {
    const dayStart = firstDate + day * 86_400_000;
    let produced = 0;
    let consumed = 0;
    let charged = 0;
    hourly.forEach((point, index) => {
      const at = first + index * HOUR_MS;
      if (at < dayStart || at >= dayStart + 86_400_000) return;
      produced += point.energyProduced;
      consumed += point.energyConsumed;
      charged += run.charged[index] / 1000;
    });
    daily.push({
      date: new Date(dayStart).toISOString().slice(0, 10),
      solarProductionKwh: round(produced, 4),
      loadConsumptionKwh: round(consumed, 4),
      batteryChargeKwh: round(charged, 4),
    });
  }
  return { hourly, daily };
}

function baselineSolarAt(input: ForecastInput, timeline: Timeline, hours: number[]): number[] {
  const power = baselineSolar(input.site, timeline);
  return hours.map((hour) => power[hour]);
}

function modelSolar(
  payload: ForecastPayload,
  context: FeatureContext,
  hours: number[],
  origin: number,
): number[] {
  const { pv, models, capacityWatts, featureNames } = payload;
  const { geometry } = context.timeline;
  const clamp = (power: number) => (Number.isFinite(power) ? Math.min(pv.maxPower, Math.max(0, power)) : 0);
  return hours.map((hour) => {
    if (!(geometry.clearGhiMean[hour] > 0)) return 0;
    const physical = context.physicalPower[hour];
    if (Number.isFinite(physical)) {
      const correction = models.solarWeather
        ? predictBoosted(
            models.solarWeather,
            featureRows(context, 'solarWeather', [hour], [origin], { names: featureNames.solarWeather }),
          )
        : 0;
      return clamp(physical + capacityWatts * correction);
    }
    if (models.solarHistory)
      return clamp(
        context.clearPower[hour] *
          predictBoosted(
            models.solarHistory,
            featureRows(context, 'solarHistory', [hour], [origin], { names: featureNames.solarHistory }),
          ),
      );
    // No weather and no history-only trees served: smart persistence, the clear sky at the last day's index.
    return clamp(context.clearPower[hour] * recentClearSkyIndex(context, origin));
  });
}

function modelLoad(payload: ForecastPayload, context: FeatureContext, hour: number, origin: number): number {
  const { models, featureNames } = payload;
  const set: FeatureSet | null =
    models.loadWeather && Number.isFinite(context.timeline.temperature[hour])
      ? 'loadWeather'
      : models.loadHistory
        ? 'loadHistory'
        : null;
  const model = set ? models[set] : null;
  const base = baselineLoad(context.timeline, hour, origin);
  if (!set || !model) return base;
  const correction = predictBoosted(
    model,
    featureRows(context, set, [hour], [origin], { names: featureNames[set] }),
  );
  return Math.max(0, base + loadLevel(context, origin) * (Number.isFinite(correction) ? correction : 0));
}

function batteryFor(
  input: ForecastInput,
  payload: ForecastPayload | null,
  timeline: Timeline,
  origin: number,
) {
  const site = input.site.batteryCapacityWh;
  const capacityWh = site && site > 0 ? site : (payload?.battery.capacityWh ?? DEFAULT_BATTERY_CAPACITY_WH);
  // The last state of charge the history shows; a history without any starts the balance at 50 %.
  let start = DEFAULT_STATE_OF_CHARGE;
  for (let hour = origin - 1; hour >= 0; hour--) {
    if (Number.isFinite(timeline.stateOfCharge[hour])) {
      start = timeline.stateOfCharge[hour];
      break;
    }
  }
  // Not below the lowest level the battery was seen at (its reserve), unless it starts below it.
  const floor = Math.min(payload?.battery.minStateOfCharge ?? 0, start);
  return { capacityWh, start, floor };
}
