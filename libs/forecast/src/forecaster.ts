import type { Orientation } from './model/pv-physics';

export type { Orientation };

/**
 * The contract between the forecasting model (`./model`) and the code that runs it (jobs, api,
 * scheduler). Plain data in and out: the model never touches a database, a queue or a clock.
 */

/** What the model knows of an installation. Without the owner's orientation, it is inferred. */
export interface Site {
  latitude: number;
  longitude: number;
  /** Installed PV power in W, when the owner gave it. */
  capacityWatts: number | null;
  /** Usable battery energy in Wh, when known; the model may estimate it from history. */
  batteryCapacityWh: number | null;
  /** The array as installed, when the owner gave it: used instead of an orientation inferred from the history. */
  orientation?: Orientation | null;
}

/** One UTC hour of measured telemetry: averages of what the source sent in that hour. */
export interface HourlyObservation {
  /** Start of the UTC hour. */
  hour: Date;
  /** W */
  solarPower: number | null;
  /** W */
  loadPower: number | null;
  /** % */
  stateOfCharge: number | null;
}

/** One UTC hour of weather (Open-Meteo's hourly variables; measured or forecast). */
export interface HourlyWeather {
  hour: Date;
  /** °C */
  temperature: number | null;
  /** W/m², global horizontal */
  shortwaveRadiation: number | null;
  /** % */
  cloudCover: number | null;
  /** WMO code */
  weatherCode: number | null;
  uvIndex: number | null;
  /** mm */
  precipitation: number | null;
}

/** Validation metrics on a time-ordered hold-out (never a shuffled split). */
export interface ModelMetrics {
  mae: number;
  rmse: number;
  r2: number;
  solar_mae: number;
  solar_rmse: number;
  solar_r2: number;
  load_mae: number;
  load_rmse: number;
  load_r2: number;
}

/** Which forecast a learner's hold-out earned: its trees, or the baseline it had to beat. */
export type ServedChoice = 'learned' | 'baseline';

/** Where a forecast's array orientation comes from: the owner, the history, or an assumption. */
export type OrientationSource = 'installed' | 'fitted' | 'assumed';

/**
 * What a trained model serves, decided on the hold-out (the last 15 % of the history): a learned
 * part only where its day-ahead RMSE there beat its baseline's, else the baseline. See
 * docs/forecasting.md.
 */
export interface ServedModel {
  /** Solar with a weather forecast; baseline: the fitted physical model alone. */
  solar: ServedChoice;
  /** Solar for hours without weather; baseline: smart persistence (the last day's clear-sky index). */
  solarWithoutWeather: ServedChoice;
  /** Load; baseline: the profile (the same hour's mean over the last 14 days). */
  load: ServedChoice;
  /**
   * The array's orientation the forecast uses: as the owner installed it (`installed`), else fitted
   * on clear days, or assumed with too few of them.
   */
  orientation: { tilt: number; azimuth: number; source: OrientationSource };
}

/** A trained model, serializable as JSON (stored per source in PostgreSQL). */
export interface TrainedModel {
  version: number;
  trainedAt: string;
  dataPointsUsed: number;
  metrics: ModelMetrics;
  /** What the forecast serves; absent in models stored before it was recorded. */
  servedModel?: ServedModel;
  /** The learner's parameters: opaque to everything but `./model`. */
  payload: unknown;
}

/** One hour of a forecast. Powers in W, state of charge in %, energies in kWh for the hour. */
export interface HourlyForecastPoint {
  timestamp: string;
  solarPower: number;
  loadPower: number;
  stateOfCharge: number;
  energyProduced: number;
  energyConsumed: number;
}

/** One day of a forecast (kWh). */
export interface DailyForecastPoint {
  date: string;
  solarProductionKwh: number;
  loadConsumptionKwh: number;
  batteryChargeKwh: number;
}

/** A forecast: 168 hourly points and 7 daily ones. */
export interface Forecast {
  hourly: HourlyForecastPoint[];
  daily: DailyForecastPoint[];
}

export interface TrainingInput {
  site: Site;
  /** Hourly history, oldest first. */
  history: HourlyObservation[];
  /** Weather for the same hours, when known (may be empty). */
  weather: HourlyWeather[];
  now: Date;
  /** 0..100, for the job's progress. */
  onProgress?: (percent: number) => void;
}

export interface ForecastInput {
  site: Site;
  /** null: the physics-only baseline (no training data, or never trained). */
  model: TrainedModel | null;
  /** Recent history (at least the last days), for profiles, lags and the current state of charge. */
  history: HourlyObservation[];
  /** Forecast weather for the next 7 days, when known (may be empty). */
  weather: HourlyWeather[];
  now: Date;
}

/**
 * A forecast with, beside it, the physics-only forecast of the same input (the input without its
 * model), which the day-ahead accuracy scores compare it with.
 */
export interface ForecastWithPhysics {
  forecast: Forecast;
  /** Null when the physics-only forecast is the one served (no model the forecast can read). */
  physics: Forecast | null;
}
