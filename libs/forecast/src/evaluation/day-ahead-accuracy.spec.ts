import { TrainedModel } from '../forecaster';
import { SYNTHETIC_SITE, syntheticSeries } from '../model/model.fixtures';
import { MODEL_VERSION, StoredForecastPayload } from '../model/model-payload';
import { forecast } from '../model/predict';
import { trainForecaster } from '../model/train';
import {
  DAY_HOURS,
  dayAheadDate,
  DayAheadForecast,
  dayAheadForecast,
  DayAheadHour,
  MeasuredHour,
  scoreDayAheadForecasts,
  servedModelKind,
} from './day-ahead-accuracy';

const HOUR_MS = 3_600_000;
const BERLIN = { latitude: 52.52, longitude: 13.4 };

/** Daytime from 06:00 to 17:59 UTC, with a flat clear sky of 1,000 W: easy to add up by hand. */
const daytime = (hour: number) => hour >= 6 && hour < 18;
const CLEAR_SKY = Array.from({ length: DAY_HOURS }, (_, hour) => (daytime(hour) ? 1000 : 0));

function day(date: string, hour: (index: number) => Partial<DayAheadHour>): DayAheadForecast {
  return {
    date,
    hours: CLEAR_SKY.map((clearSkyPower, index) => ({
      solarPower: 0,
      loadPower: 500,
      stateOfCharge: 60,
      physicsSolarPower: daytime(index) ? 1000 : 0,
      physicsLoadPower: 700,
      clearSkyPower,
      daytime: daytime(index),
      ...hour(index),
    })),
    previousDayClearSky: CLEAR_SKY,
  };
}

/** Measurements by hour start; hours not given are unmeasured. */
function measurements(rows: Array<[string, (hour: number) => MeasuredHour | undefined]>) {
  const map = new Map<number, MeasuredHour>();
  for (const [date, of] of rows) {
    const start = Date.parse(`${date}T00:00:00Z`);
    for (let hour = 0; hour < DAY_HOURS; hour++) {
      const value = of(hour);
      if (value) map.set(start + hour * HOUR_MS, value);
    }
  }
  return (at: number) => map.get(at);
}

/** 9 June: half the clear sky (index 0.5). 10 June: 800 W in the morning, 400 W after. 11 June: 600 W. */
const measured = measurements([
  ['2026-06-09', (hour) => ({ solarPower: daytime(hour) ? 500 : 0, loadPower: null, stateOfCharge: null })],
  [
    '2026-06-10',
    (hour) =>
      hour === 0
        ? undefined
        : {
            solarPower: daytime(hour) ? (hour < 12 ? 800 : 400) : 0,
            loadPower: 400,
            stateOfCharge: hour < 12 ? 50 : 65,
          },
  ],
  ['2026-06-11', (hour) => ({ solarPower: daytime(hour) ? 600 : 0, loadPower: null, stateOfCharge: null })],
]);

const forecasts = [
  // Right in the morning, 100 W high in the afternoon; 50 W at 03:00 is night and does not count.
  day('2026-06-10', (hour) => ({
    solarPower: daytime(hour) ? (hour < 12 ? 800 : 500) : hour === 3 ? 50 : 0,
  })),
  // Exactly right, as is smart persistence (the 10th's index is 0.6).
  day('2026-06-11', (hour) => ({ solarPower: daytime(hour) ? 600 : 0 })),
  // Not measured yet: left out.
  day('2026-06-12', () => ({})),
];

describe('scoreDayAheadForecasts', () => {
  const { days, overall } = scoreDayAheadForecasts(forecasts, measured, 5000);

  it('scores solar over the daytime hours with a measurement, normalised by the capacity', () => {
    expect(days.map((score) => score.date)).toEqual(['2026-06-10', '2026-06-11']);
    const [tenth, eleventh] = days;
    // Errors: 0 W for 6 hours, +100 W for 6 hours.
    expect(tenth.solar).toEqual({
      hours: 12,
      rmseW: Math.sqrt(5000),
      maeW: 50,
      nrmse: Math.sqrt(5000) / 5000,
      nmae: 0.01,
    });
    expect(eleventh.solar).toEqual({ hours: 12, rmseW: 0, maeW: 0, nrmse: 0, nmae: 0 });
  });

  it('scores skill against smart persistence and the physics baseline over the same hours', () => {
    const [tenth, eleventh] = days;
    // Smart persistence on the 10th: 500 W (errors −300, +100); physics: 1,000 W (+200, +600).
    expect(tenth.skill.vsSmartPersistence).toBeCloseTo(1 - 1 / Math.sqrt(10), 12);
    expect(tenth.skill.vsPhysics).toBeCloseTo(1 - 1 / Math.sqrt(40), 12);
    // A perfect reference leaves nothing to beat: no skill.
    expect(eleventh.skill.vsSmartPersistence).toBeNull();
    expect(eleventh.skill.vsPhysics).toBeCloseTo(1, 12);
  });

  it('scores load and state of charge over every measured hour', () => {
    const [tenth, eleventh] = days;
    expect(tenth.load).toEqual({ hours: 23, rmseW: 100, maeW: 100, skillVsProfile: 1 - 100 / 300 });
    // 11 hours 10 points off (00:00 is unmeasured), 12 hours 5 points off.
    expect(tenth.battery).toEqual({ hours: 23, socMae: (11 * 10 + 12 * 5) / 23 });
    expect(eleventh.load).toBeNull();
    expect(eleventh.battery).toBeNull();
  });

  it('pools every scored hour of every day for the overall score', () => {
    // 24 solar hours: 6 off by 100 W; smart persistence: 6 by 300 W, 6 by 100 W.
    expect(overall.solar).toEqual({ hours: 24, rmseW: 50, maeW: 25, nrmse: 0.01, nmae: 0.005 });
    expect(overall.skill.vsSmartPersistence).toBeCloseTo(1 - 1 / Math.sqrt(10), 12);
    expect(overall.load).toEqual(days[0].load);
    expect(overall.battery).toEqual(days[0].battery);
  });

  it('gives solar errors in W only when the source has no capacity', () => {
    const watts = scoreDayAheadForecasts(forecasts, measured, null);
    expect(watts.overall.solar).toEqual({ hours: 24, rmseW: 50, maeW: 25, nrmse: null, nmae: null });
    expect(scoreDayAheadForecasts(forecasts, measured, 0).overall.solar?.nrmse).toBeNull();
  });

  it('does not score solar on a day whose day before had too little measured for smart persistence', () => {
    const onlyTenth = measurements([
      [
        '2026-06-10',
        (hour) => ({ solarPower: daytime(hour) ? 700 : 0, loadPower: 400, stateOfCharge: null }),
      ],
    ]);
    const { days: scored, overall: pooled } = scoreDayAheadForecasts([forecasts[0]], onlyTenth, 5000);
    expect(scored).toEqual([
      {
        date: '2026-06-10',
        solar: null,
        load: { hours: 24, rmseW: 100, maeW: 100, skillVsProfile: 1 - 100 / 300 },
        battery: null,
        skill: { vsSmartPersistence: null, vsPhysics: null },
      },
    ]);
    expect(pooled.solar).toBeNull();
  });

  it('leaves out a day of a source measuring only solar when it has no smart persistence', () => {
    const solarOnly = measurements([
      [
        '2026-06-10',
        (hour) => ({ solarPower: daytime(hour) ? 700 : 0, loadPower: null, stateOfCharge: null }),
      ],
      [
        '2026-06-11',
        (hour) => ({ solarPower: daytime(hour) ? 600 : 0, loadPower: null, stateOfCharge: null }),
      ],
    ]);
    const { days: scored } = scoreDayAheadForecasts(forecasts, solarOnly, 5000);
    // The 10th has no day before to persist; the 11th persists the 10th's index of 0.7.
    expect(scored.map((score) => score.date)).toEqual(['2026-06-11']);
    expect(scored[0].solar?.hours).toBe(12);
  });

  it('scores a forecast and its references on the same hours, leaving out one a reference lacks', () => {
    // A physics value or profile value kept as null (a NaN in JSON) at 09:00.
    const gaps = forecasts.map((kept) => ({
      ...kept,
      hours: kept.hours.map((hour, index) =>
        index === 9
          ? {
              ...hour,
              physicsSolarPower: null as unknown as number,
              physicsLoadPower: null as unknown as number,
            }
          : hour,
      ),
    }));
    const [tenth] = scoreDayAheadForecasts(gaps, measured, 5000).days;
    // 11 solar hours: 5 right, 6 off by 100 W; smart persistence 5 off by 300 W, 6 by 100 W;
    // physics 5 off by 200 W, 6 by 600 W. Load: 22 hours, 100 W off, the profile 300 W.
    expect(tenth.solar).toMatchObject({ hours: 11, rmseW: Math.sqrt(60_000 / 11) });
    expect(tenth.skill.vsSmartPersistence).toBeCloseTo(
      1 - Math.sqrt(60_000 / 11) / Math.sqrt((5 * 300 ** 2 + 6 * 100 ** 2) / 11),
      12,
    );
    expect(tenth.skill.vsPhysics).toBeCloseTo(
      1 - Math.sqrt(60_000 / 11) / Math.sqrt((5 * 200 ** 2 + 6 * 600 ** 2) / 11),
      12,
    );
    expect(tenth.load).toEqual({ hours: 22, rmseW: 100, maeW: 100, skillVsProfile: 1 - 100 / 300 });
  });

  it('answers no days and empty scores when nothing was measured', () => {
    expect(scoreDayAheadForecasts(forecasts, () => undefined, 5000)).toEqual({
      days: [],
      overall: {
        solar: null,
        load: null,
        battery: null,
        skill: { vsSmartPersistence: null, vsPhysics: null },
      },
    });
  });
});

describe('dayAheadDate', () => {
  it('is the UTC day after the one the forecast was issued on', () => {
    expect(dayAheadDate(new Date('2026-06-10T00:00:00Z'))).toBe('2026-06-11');
    expect(dayAheadDate(new Date('2026-06-10T23:59:59.999Z'))).toBe('2026-06-11');
    expect(dayAheadDate(new Date('2026-12-31T18:30:00Z'))).toBe('2027-01-01');
  });
});

describe('dayAheadForecast', () => {
  const site = { ...BERLIN, capacityWatts: 4000, batteryCapacityWh: null };
  const issuedAt = new Date('2026-06-10T18:40:00Z');
  const physics = forecast({ site, model: null, history: [], weather: [], now: issuedAt });

  it('keeps the 24 hours of the next UTC day, with the baseline, clear sky and daytime beside', () => {
    const served = {
      ...physics,
      hourly: physics.hourly.map((point) => ({ ...point, solarPower: point.solarPower + 1 })),
    };
    const kept = dayAheadForecast(issuedAt, served, physics, site, null)!;
    expect(kept.date).toBe('2026-06-11');
    expect(kept.hours).toHaveLength(24);
    expect(kept.previousDayClearSky).toHaveLength(24);
    const first = physics.hourly.findIndex((point) => point.timestamp === '2026-06-11T00:00:00.000Z');
    kept.hours.forEach((hour, index) => {
      const point = physics.hourly[first + index];
      expect(hour.solarPower).toBe(point.solarPower + 1);
      expect(hour.physicsSolarPower).toBe(point.solarPower);
      expect(hour.physicsLoadPower).toBe(point.loadPower);
      expect(hour.stateOfCharge).toBe(point.stateOfCharge);
    });
    // Berlin's noon is bright and daytime, its midnight dark; the clear sky is within the capacity.
    expect(kept.hours[11]).toMatchObject({ daytime: true });
    expect(kept.hours[11].clearSkyPower).toBeGreaterThan(2000);
    expect(kept.hours[11].clearSkyPower).toBeLessThanOrEqual(4000);
    expect(kept.hours[23]).toMatchObject({ daytime: false, clearSkyPower: 0 });
    expect(kept.previousDayClearSky[11]).toBeCloseTo(kept.hours[11].clearSkyPower, -1);
    // The physics-only forecast without weather is the clear sky dimmed (climatological clearness).
    expect(kept.hours[11].physicsSolarPower).toBeGreaterThan(0);
    expect(kept.hours[11].physicsSolarPower).toBeLessThan(kept.hours[11].clearSkyPower);
  });

  it('is null when the forecast does not cover the next day', () => {
    const short = { ...physics, hourly: physics.hourly.slice(0, 10) };
    expect(dayAheadForecast(issuedAt, short, physics, site, null)).toBeNull();
  });

  it('says an untrained source is served the physics forecast', () => {
    expect(servedModelKind(null)).toBe('physics');
    expect(
      servedModelKind({ version: -1, trainedAt: '', dataPointsUsed: 0, metrics: {} as never, payload: {} }),
    ).toBe('physics');
  });

  describe('a trained source', () => {
    const start = Date.parse('2024-04-01T00:00:00Z');
    const series = syntheticSeries(start, 30, 5);
    const model = trainForecaster({
      site: SYNTHETIC_SITE,
      history: series.history,
      weather: series.weather,
      now: new Date(start + 30 * 86_400_000),
    });
    const payload = model.payload as StoredForecastPayload;
    const withModels = (models: Partial<StoredForecastPayload['models']>): TrainedModel => ({
      ...model,
      payload: { ...payload, models: { ...payload.models, ...models } },
    });
    const none = { solarWeather: null, solarHistory: null, loadWeather: null, loadHistory: null };

    it('is served the learned model while it holds trees for any part', () => {
      expect(Object.values(payload.models).some((learner) => learner !== null)).toBe(true);
      expect(servedModelKind(model)).toBe('learned');
      // One part learned, every other one the baseline.
      for (const [set, learner] of Object.entries(payload.models)) {
        if (learner) expect(servedModelKind(withModels({ ...none, [set]: learner }))).toBe('learned');
      }
    });

    it('is served the baseline when the hold-out chose it for every part', () => {
      expect(servedModelKind(withModels(none))).toBe('baseline');
    });

    it('is served the physics forecast with a model the forecast cannot read, whatever it says it serves', () => {
      // A model of the version before `servedModel` existed: the forecast serves physics.
      const { servedModel: _, ...older } = { ...model, version: MODEL_VERSION - 1 };
      expect(servedModelKind(older)).toBe('physics');
      expect(servedModelKind({ ...model, version: MODEL_VERSION + 1 })).toBe('physics');
      expect(servedModelKind({ ...model, payload: { ...payload, featureNames: {} } })).toBe('physics');
    });
  });
});
