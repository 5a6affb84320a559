import { withTreesAsArrays } from '@solar/testing';
import { Forecast, ForecastInput, TrainedModel } from '../forecaster';
import { clearSkyGhi } from '../solar/irradiance';
import { forecast, forecastWithPhysics, trainForecaster, withPackedTrees } from './index';
import { ForecastPayload, StoredForecastPayload } from './model-payload';
import { isPackedBoostedModel } from './packed-trees';
import { HOUR_MS } from './pv-physics';
import { SYNTHETIC_ORIENTATION, SYNTHETIC_SITE, syntheticLoad, syntheticSeries } from './model.fixtures';

const START = Date.parse('2024-03-01T00:00:00Z');
const TRAIN_DAYS = 90;
const series = syntheticSeries(START, TRAIN_DAYS + 14, 3);
const trainEnd = START + TRAIN_DAYS * 24 * HOUR_MS;
const trainHistory = series.history.filter((observation) => observation.hour.getTime() < trainEnd);
const trainWeather = series.weather.filter((hour) => hour.hour.getTime() < trainEnd);
const progress: number[] = [];
const model = trainForecaster({
  site: SYNTHETIC_SITE,
  history: trainHistory,
  weather: trainWeather,
  now: new Date(trainEnd),
  onProgress: (percent) => progress.push(percent),
});
const payload = model.payload as StoredForecastPayload;

/** Forecast input at `origin`: the 15 days before as history and, optionally, the true weather ahead. */
function inputAt(origin: number, withWeather: boolean, trained: TrainedModel | null = model): ForecastInput {
  return {
    site: SYNTHETIC_SITE,
    model: trained,
    history: series.history.filter(
      (observation) =>
        observation.hour.getTime() < origin && observation.hour.getTime() >= origin - 15 * 86_400_000,
    ),
    weather: withWeather
      ? series.weather.filter((hour) => hour.hour.getTime() >= origin - 3 * 86_400_000)
      : [],
    now: new Date(origin),
  };
}

function expectConsistent(result: Forecast, now: Date) {
  expect(result.hourly).toHaveLength(168);
  expect(result.daily).toHaveLength(7);
  const first = Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS;
  result.hourly.forEach((point, index) => {
    const at = Date.parse(point.timestamp);
    expect(at).toBe(first + index * HOUR_MS);
    for (const value of [
      point.solarPower,
      point.loadPower,
      point.stateOfCharge,
      point.energyProduced,
      point.energyConsumed,
    ]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(0);
    }
    expect(point.stateOfCharge).toBeLessThanOrEqual(100);
    expect(point.energyProduced).toBeCloseTo(point.solarPower / 1000, 4);
    expect(point.energyConsumed).toBeCloseTo(point.loadPower / 1000, 4);
    // No sun above the horizon at any moment of the hour: no solar power.
    const dark = [0, 10, 20, 30, 40, 50, 59].every(
      (minute) =>
        clearSkyGhi(new Date(at + minute * 60_000), SYNTHETIC_SITE.latitude, SYNTHETIC_SITE.longitude) === 0,
    );
    if (dark) expect(point.solarPower).toBe(0);
  });
  const firstDate = new Date(first).toISOString().slice(0, 10);
  result.daily.forEach((day, index) => {
    expect(day.date).toBe(
      new Date(Date.parse(`${firstDate}T00:00:00Z`) + index * 86_400_000).toISOString().slice(0, 10),
    );
    const hours = result.hourly.filter((point) => point.timestamp.startsWith(day.date));
    const produced = hours.reduce((sum, point) => sum + point.energyProduced, 0);
    const consumed = hours.reduce((sum, point) => sum + point.energyConsumed, 0);
    expect(day.solarProductionKwh).toBeCloseTo(produced, 3);
    expect(day.loadConsumptionKwh).toBeCloseTo(consumed, 3);
    expect(day.batteryChargeKwh).toBeGreaterThanOrEqual(0);
    expect(day.batteryChargeKwh).toBeLessThanOrEqual(produced + 1e-6);
  });
}

function rmse(pairs: [number, number][]): number {
  return Math.sqrt(pairs.reduce((sum, [a, b]) => sum + (a - b) ** 2, 0) / pairs.length);
}

describe('trainForecaster', () => {
  it('returns a JSON-serialisable model with hold-out metrics and the data points used', () => {
    expect(model.version).toBe(2);
    expect(model.trainedAt).toBe(new Date(trainEnd).toISOString());
    expect(model.dataPointsUsed).toBe(TRAIN_DAYS * 24);
    for (const value of Object.values(model.metrics)) expect(Number.isFinite(value)).toBe(true);
    expect(model.metrics.mae).toBe(model.metrics.solar_mae);
    expect(model.metrics.solar_r2).toBeGreaterThan(0.95);
    expect(model.metrics.load_rmse).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it('reports progress from 0 to 100, never backwards', () => {
    expect(progress[0]).toBe(0);
    expect(progress[progress.length - 1]).toBe(100);
    for (let index = 1; index < progress.length; index++)
      expect(progress[index]).toBeGreaterThanOrEqual(progress[index - 1]);
  });

  it('recovers a known relation: the orientation and the power of a synthetic array', () => {
    expect(Math.abs(payload.pv.orientation.tilt - SYNTHETIC_ORIENTATION.tilt)).toBeLessThanOrEqual(6);
    expect(Math.abs(payload.pv.orientation.azimuth - SYNTHETIC_ORIENTATION.azimuth)).toBeLessThanOrEqual(12);
    // Day-ahead with the true weather, over the 14 days after training: within 3 % of capacity.
    const pairs: [number, number][] = [];
    for (let day = 0; day < 14; day++) {
      const origin = trainEnd + day * 86_400_000;
      const result = forecast(inputAt(origin, true));
      for (let hour = 0; hour < 24; hour++) {
        const index = TRAIN_DAYS * 24 + day * 24 + hour;
        pairs.push([result.hourly[hour].solarPower, series.solar[index]]);
      }
    }
    expect(rmse(pairs) / 4000).toBeLessThan(0.03);
  });

  it('learns the weekly load shape well enough to beat same-as-yesterday', () => {
    const model: [number, number][] = [];
    const yesterday: [number, number][] = [];
    for (let day = 0; day < 14; day++) {
      const origin = trainEnd + day * 86_400_000;
      const result = forecast(inputAt(origin, false));
      for (let hour = 0; hour < 24; hour++) {
        const index = TRAIN_DAYS * 24 + day * 24 + hour;
        model.push([result.hourly[hour].loadPower, series.load[index]]);
        yesterday.push([series.load[index - 24], series.load[index]]);
      }
    }
    expect(rmse(model)).toBeLessThan(0.8 * rmse(yesterday));
    // The known shape: weekend middays are higher than weekday ones.
    const saturdayNoon = Date.parse('2024-07-06T11:00:00Z');
    const wednesdayNoon = Date.parse('2024-07-03T11:00:00Z');
    expect(syntheticLoad(saturdayNoon, SYNTHETIC_SITE.longitude)).toBeGreaterThan(
      syntheticLoad(wednesdayNoon, SYNTHETIC_SITE.longitude) + 400,
    );
  });

  it('forecasts load with the weather trees only on the hours that have a temperature', () => {
    expect(payload.models.loadWeather).not.toBeNull();
    // Weather for the first 3 days of the 7; which trees serve an hour shows when they are dropped.
    const full = inputAt(trainEnd, true);
    const input = {
      ...full,
      weather: full.weather.filter((hour) => hour.hour.getTime() < trainEnd + 72 * HOUR_MS),
    };
    const load = (trained: TrainedModel) =>
      forecast({ ...input, model: trained }).hourly.map((point) => point.loadPower);
    const withoutWeatherTrees = load({
      ...model,
      payload: { ...payload, models: { ...payload.models, loadWeather: null } },
    });
    const served = load(model);
    expect(served.slice(0, 72).some((power, hour) => power !== withoutWeatherTrees[hour])).toBe(true);
    expect(served.slice(72)).toEqual(withoutWeatherTrees.slice(72));
  });

  it('is deterministic', () => {
    const monthEnd = START + 30 * 24 * HOUR_MS;
    const train = () =>
      trainForecaster({
        site: SYNTHETIC_SITE,
        history: trainHistory.filter((observation) => observation.hour.getTime() < monthEnd),
        weather: trainWeather.filter((hour) => hour.hour.getTime() < monthEnd),
        now: new Date(monthEnd),
      });
    // Everything but the training's wall-clock time.
    const strip = (trained: TrainedModel) =>
      JSON.stringify({
        ...trained,
        payload: { ...(trained.payload as StoredForecastPayload), training: null },
      });
    expect(strip(train())).toBe(strip(train()));
  });

  it('trains on history without any weather, and on nothing at all', () => {
    const withoutWeather = trainForecaster({
      site: SYNTHETIC_SITE,
      history: trainHistory,
      weather: [],
      now: new Date(trainEnd),
    });
    const models = (withoutWeather.payload as StoredForecastPayload).models;
    expect(models.solarWeather).toBeNull();
    expect(models.solarHistory).not.toBeNull();
    expect(models.loadHistory).not.toBeNull();
    const empty = trainForecaster({
      site: SYNTHETIC_SITE,
      history: [],
      weather: [],
      now: new Date(trainEnd),
    });
    expect(empty.dataPointsUsed).toBe(0);
    expectConsistent(forecast({ ...inputAt(trainEnd, true), model: empty }), new Date(trainEnd));
  });
});

describe('forecast', () => {
  const now = new Date(trainEnd + 5 * 86_400_000 + 17 * 60_000);

  const cases: [string, boolean, TrainedModel | null][] = [
    ['the trained model, with weather', true, model],
    ['the trained model, without weather', false, model],
    ['the physics-only baseline, with weather', true, null],
    ['the physics-only baseline, without weather', false, null],
  ];
  it.each(cases)('is bounded and physically consistent: %s', (_, withWeather, trained) => {
    const result = forecast({ ...inputAt(now.getTime(), withWeather, trained), now });
    expect(result.hourly.some((point) => point.solarPower > 0)).toBe(true);
    expectConsistent(result, now);
  });

  it('starts at now when now is a full hour, else at the next one', () => {
    const onTheHour = new Date(trainEnd);
    expect(forecast(inputAt(trainEnd, false)).hourly[0].timestamp).toBe(onTheHour.toISOString());
    expect(forecast({ ...inputAt(trainEnd, false), now: new Date(trainEnd + 1) }).hourly[0].timestamp).toBe(
      new Date(trainEnd + HOUR_MS).toISOString(),
    );
  });

  it('serves a source with no model and no history from physics alone', () => {
    const result = forecast({
      site: { ...SYNTHETIC_SITE, capacityWatts: null, batteryCapacityWh: null },
      model: null,
      history: [],
      weather: [],
      now,
    });
    expectConsistent(result, now);
    expect(result.daily[1].solarProductionKwh).toBeGreaterThan(1);
    // No state of charge in the history: the balance starts from 50 % of the default 10 kWh.
    const first = result.hourly[0];
    const net = first.solarPower - first.loadPower;
    const expected = net >= 0 ? 50 + (net * 0.95) / 100 : 50 + net / 0.95 / 100;
    expect(first.stateOfCharge).toBeCloseTo(expected, 1);
  });

  it('predicts the same from the model as from its JSON copy', () => {
    const parsed = JSON.parse(JSON.stringify(model)) as TrainedModel;
    expect(forecast({ ...inputAt(trainEnd, true), model: parsed })).toEqual(
      forecast(inputAt(trainEnd, true)),
    );
  });

  it('reads trees stored packed or, as older models hold them, as arrays alike', () => {
    expect(Object.values(payload.models).every(isPackedBoostedModel)).toBe(true);
    const older = JSON.parse(JSON.stringify(withTreesAsArrays(model)));
    expect(forecast({ ...inputAt(trainEnd, true), model: older })).toEqual(forecast(inputAt(trainEnd, true)));
    // Packed again, it is the model as trained; a packed model has nothing to pack.
    expect(withPackedTrees(older)).toEqual(model);
    expect(withPackedTrees(model)).toBeNull();
  });

  it('falls back to the physics-only baseline when packed trees are damaged', () => {
    const solarWeather = { ...payload.models.solarWeather, nodes: 'AAAA' };
    const damaged = { ...model, payload: { ...payload, models: { ...payload.models, solarWeather } } };
    expect(forecast({ ...inputAt(trainEnd, true), model: damaged })).toEqual(
      forecast(inputAt(trainEnd, true, null)),
    );
  });

  it('falls back to the physics-only baseline for a model of another version', () => {
    const stale = { ...model, version: 999 };
    expect(forecast({ ...inputAt(trainEnd, true), model: stale })).toEqual(
      forecast(inputAt(trainEnd, true, null)),
    );
  });

  it('keeps forecasting from a model stored before its features changed', () => {
    // The solar trees without weather read the calendar after the hour until it was dropped:
    // such a model's one tree here sends every June hour (day of year's cosine ≈ −0.9) to +0.3.
    const earlierNames = [
      'hourSin',
      'hourCos',
      'dayOfYearSin',
      'dayOfYearCos',
      'monthSin',
      'monthCos',
      ...payload.featureNames.solarHistory.slice(2),
    ];
    const splitOnDayOfYear = {
      feature: [earlierNames.indexOf('dayOfYearCos'), -1, -1],
      threshold: [-0.5, 0, 0],
      missingLeft: [0, 0, 0],
      left: [1, -1, -1],
      right: [2, -1, -1],
      value: [0, 0.3, -0.3],
    };
    const stored = (
      solarHistory: ForecastPayload['models']['solarHistory'],
      names: string[],
    ): TrainedModel => ({
      ...model,
      payload: {
        ...payload,
        models: { ...payload.models, solarHistory },
        featureNames: { ...payload.featureNames, solarHistory: names },
      },
    });
    const earlier = stored(
      { featureCount: earlierNames.length, base: 0.5, trees: [splitOnDayOfYear] },
      earlierNames,
    );
    const constant = stored(
      { featureCount: payload.featureNames.solarHistory.length, base: 0.8, trees: [] },
      [...payload.featureNames.solarHistory],
    );
    const input = { ...inputAt(now.getTime(), false), now };
    expect(new Date(now).getUTCMonth()).toBe(5);
    const served = forecast({ ...input, model: earlier });
    expect(served).toEqual(forecast({ ...input, model: constant }));
    expect(served).not.toEqual(forecast({ ...input, model: null }));
    // Features this code does not compute: the model cannot be read, physics serves.
    const unknown = stored({ featureCount: 1, base: 0.5, trees: [] }, ['cloudBase']);
    expect(forecast({ ...input, model: unknown })).toEqual(forecast({ ...input, model: null }));
  });

  it('computes the physics-only forecast beside the served one from the same inputs', () => {
    for (const withWeather of [true, false]) {
      const input = { ...inputAt(now.getTime(), withWeather), now };
      expect(forecastWithPhysics(input)).toEqual({
        forecast: forecast(input),
        physics: forecast({ ...input, model: null }),
      });
    }
    // No model the forecast can read: the physics-only forecast is the one served.
    for (const unread of [null, { ...model, version: 999 }]) {
      const input = { ...inputAt(now.getTime(), true), model: unread, now };
      expect(forecastWithPhysics(input)).toEqual({ forecast: forecast(input), physics: null });
    }
  });

  it('runs the battery from the last observed state of charge and keeps it within 0–100 %', () => {
    const input = inputAt(trainEnd, false);
    const last = input.history[input.history.length - 1].stateOfCharge ?? NaN;
    const result = forecast(input);
    const first = result.hourly[0];
    const net = first.solarPower - first.loadPower;
    // The first hour moves the charge in the direction of the balance (or leaves it at a limit).
    if (net > 0) expect(first.stateOfCharge).toBeGreaterThanOrEqual(last);
    if (net < 0) expect(first.stateOfCharge).toBeLessThanOrEqual(last);
    for (const point of result.hourly) {
      expect(point.stateOfCharge).toBeGreaterThanOrEqual(0);
      expect(point.stateOfCharge).toBeLessThanOrEqual(100);
    }
  });

  it('ignores broken input instead of failing', () => {
    const input = inputAt(trainEnd, true);
    const broken: ForecastInput = {
      ...input,
      history: [
        ...input.history,
        { hour: new Date(Number.NaN), solarPower: 5, loadPower: 5, stateOfCharge: 5 },
        { hour: new Date(trainEnd - HOUR_MS), solarPower: -3, loadPower: Number.NaN, stateOfCharge: 140 },
      ],
      weather: [
        ...input.weather,
        {
          hour: new Date(trainEnd + HOUR_MS),
          temperature: Number.POSITIVE_INFINITY,
          shortwaveRadiation: -20,
          cloudCover: null,
          weatherCode: null,
          uvIndex: null,
          precipitation: null,
        },
      ],
    };
    const result = forecast(broken);
    expect(result.hourly[0].timestamp).toBe(new Date(trainEnd).toISOString());
    expectConsistent(result, input.now);
  });
});
