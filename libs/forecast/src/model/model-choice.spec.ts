import { ServedModel } from '../forecaster';
import { forecast, trainForecaster } from './index';
import { featureContext, recentClearSkyIndex } from './features';
import { FeatureSet } from './features';
import { StoredForecastPayload, ValidationSummary } from './model-payload';
import { HOUR_MS } from './pv-physics';
import { buildTimeline } from './timeline';
import { chooseServed, servedLoadSummary, trainingCount } from './train';
import { SYNTHETIC_SITE, syntheticSeries } from './model.fixtures';

const DAY_HOURS = 24;

describe('the validation split', () => {
  const dayOf = (hour: number) => Math.floor(hour / DAY_HOURS);

  it('holds out the last share of the hours, starting at a day boundary', () => {
    const hours = Array.from({ length: 10 * DAY_HOURS }, (_, hour) => hour);
    // 15 % of 240 hours: the hold-out would start at hour 204, in day 8; it starts with day 8.
    expect(trainingCount(hours, 0.15, dayOf)).toBe(8 * DAY_HOURS);
    expect(trainingCount(hours, 0.2, dayOf)).toBe(8 * DAY_HOURS);
    expect(trainingCount(hours, 0.25, dayOf)).toBe(7 * DAY_HOURS);
  });

  it('counts hours, not days, when hours are missing, and stays chronological', () => {
    // Days 0–3 complete, then only the noon hour of days 4–29: 122 hours, 18 of them held out,
    // the noons of days 12–29 (a share of the hours, not of the 30 days).
    const hours = [
      ...Array.from({ length: 4 * DAY_HOURS }, (_, hour) => hour),
      ...Array.from({ length: 26 }, (_, day) => (4 + day) * DAY_HOURS + 12),
    ];
    const count = trainingCount(hours, 0.15, dayOf);
    expect(count).toBe(103);
    expect(dayOf(hours[count])).toBe(11);
    expect(hours.slice(count).every((hour) => hour > hours[count - 1])).toBe(true);
    expect(dayOf(hours[count])).not.toBe(dayOf(hours[count - 1]));
  });

  it('leaves nothing to train on when the whole history is one day', () => {
    const hours = Array.from({ length: DAY_HOURS }, (_, hour) => hour);
    expect(trainingCount(hours, 0.15, dayOf)).toBe(0);
  });
});

describe('the load metrics', () => {
  const summary = (served: 'learned' | 'baseline', rmse: number): ValidationSummary => ({
    trainRows: 100,
    validationRows: 20,
    rounds: 10,
    mae: rmse / 2,
    rmse,
    r2: 0.5,
    referenceMae: 200,
    referenceRmse: 400,
    referenceR2: 0.1,
    served,
  });

  it('describe the load model a forecast serves', () => {
    const weatherWon = summary('learned', 300);
    const weatherLost = summary('baseline', 450);
    const historyWon = summary('learned', 350);
    const historyLost = summary('baseline', 420);
    // The trees without weather serve every hour when those with weather lost.
    expect(servedLoadSummary(weatherLost, historyWon)).toBe(historyWon);
    expect(servedLoadSummary(weatherWon, historyWon)).toBe(weatherWon);
    expect(servedLoadSummary(weatherWon, historyLost)).toBe(weatherWon);
    // Both lost: the profile, measured on the hours with weather.
    expect(servedLoadSummary(weatherLost, historyLost)).toBe(weatherLost);
    expect(servedLoadSummary(null, historyLost)).toBe(historyLost);
    expect(servedLoadSummary(null, null)).toBeNull();
  });
});

describe('the model choice', () => {
  it('serves the trees only when their hold-out error is below the baseline’s', () => {
    expect(chooseServed(90, 100, 50)).toBe('learned');
    expect(chooseServed(100, 100, 50)).toBe('baseline');
    expect(chooseServed(110, 100, 50)).toBe('baseline');
    expect(chooseServed(0, 0, 0)).toBe('baseline');
  });

  it('on a short hold-out, serves the trees only when they win clearly, day by day', () => {
    // Ahead on every day by about the same: the mean is many standard errors below zero.
    expect(chooseServed(90, 100, 50, [-2, -2.5, -1.5, -2, -2])).toBe('learned');
    // Ahead overall, on a day or two: the mean is within two standard errors of zero.
    expect(chooseServed(90, 100, 50, [-12, 3, -4, 2, 1])).toBe('baseline');
    // Exactly at two standard errors (mean −2, standard error 1) is not clear.
    expect(chooseServed(90, 100, 50, [-1, -3])).toBe('baseline');
    expect(chooseServed(90, 100, 50, [-1.1, -3.1])).toBe('learned');
    // One day cannot tell; behind overall is never served.
    expect(chooseServed(90, 100, 50, [-10])).toBe('baseline');
    expect(chooseServed(110, 100, 50, [-2, -2, -2])).toBe('baseline');
  });

  const START = Date.parse('2024-03-01T00:00:00Z');
  const DAYS = 60;
  const series = syntheticSeries(START, DAYS + 2, 5);
  const end = START + DAYS * DAY_HOURS * HOUR_MS;
  const history = series.history.filter((observation) => observation.hour.getTime() < end);
  const weather = series.weather.filter((hour) => hour.hour.getTime() < end);
  const model = trainForecaster({ site: SYNTHETIC_SITE, history, weather, now: new Date(end) });
  const payload = model.payload as StoredForecastPayload;
  const parts: [keyof ServedModel, FeatureSet][] = [
    ['solar', 'solarWeather'],
    ['solarWithoutWeather', 'solarHistory'],
  ];

  it('records what it serves, as the hold-out decided, and keeps trees only for what it serves', () => {
    const served = model.servedModel!;
    expect(served.orientation).toEqual({
      tilt: payload.pv.orientation.tilt,
      azimuth: payload.pv.orientation.azimuth,
      source: 'fitted',
    });
    for (const [part, set] of parts) {
      const summary = payload.training.validation[set]!;
      expect([part, served[part]]).toEqual([
        part,
        summary.rmse < summary.referenceRmse ? 'learned' : 'baseline',
      ]);
      expect([set, payload.models[set] !== null]).toEqual([set, served[part] === 'learned']);
    }
    const loadLearned = payload.models.loadWeather !== null || payload.models.loadHistory !== null;
    expect(served.load).toBe(loadLearned ? 'learned' : 'baseline');
    // The metrics are the served forecast's on the hold-out.
    const solar = payload.training.validation.solarWeather!;
    expect(model.metrics.solar_rmse).toBe(served.solar === 'learned' ? solar.rmse : solar.referenceRmse);
  });

  it('uses the orientation the owner installed, and says so', () => {
    const installed = { tilt: 25, azimuth: 170 };
    const site = { ...SYNTHETIC_SITE, orientation: installed };
    const given = trainForecaster({ site, history, weather, now: new Date(end) });
    expect(given.servedModel!.orientation).toEqual({ ...installed, source: 'installed' });
    const pv = (given.payload as StoredForecastPayload).pv;
    expect([pv.orientation, pv.orientationSource]).toEqual([installed, 'installed']);
    // The scale and coefficients are fitted for that plane, not the inferred one.
    expect(pv.clearSkyScale).not.toBe(payload.pv.clearSkyScale);
  });

  it('serves smart persistence for solar without weather when the history-only trees lost', () => {
    const withoutTrees: StoredForecastPayload = {
      ...payload,
      models: { ...payload.models, solarHistory: null },
    };
    const origin = end + DAY_HOURS * HOUR_MS;
    const recent = series.history.filter(
      (observation) =>
        observation.hour.getTime() < origin && observation.hour.getTime() >= origin - 15 * 86_400_000,
    );
    const result = forecast({
      site: SYNTHETIC_SITE,
      model: { ...model, payload: withoutTrees },
      history: recent,
      weather: [],
      now: new Date(origin),
    });
    const start = origin - 15 * DAY_HOURS * HOUR_MS;
    const timeline = buildTimeline(SYNTHETIC_SITE, recent, [], start, origin + 168 * HOUR_MS);
    const context = featureContext(timeline, payload.pv, payload.capacityWatts);
    const index = recentClearSkyIndex(context, 15 * DAY_HOURS);
    expect(index).toBeGreaterThan(0);
    result.hourly.slice(0, DAY_HOURS).forEach((point, hour) => {
      const expected = Math.min(payload.pv.maxPower, context.clearPower[15 * DAY_HOURS + hour] * index);
      expect(point.solarPower).toBeCloseTo(expected, 0);
    });
  });
});
