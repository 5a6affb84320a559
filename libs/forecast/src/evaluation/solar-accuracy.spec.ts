import {
  dailyClearSkyIndex,
  errorStats,
  isDaytimeAt,
  isDaytimeHour,
  MAX_DAILY_CLEAR_SKY_INDEX,
  skillScore,
  smartPersistence,
  SOLAR_ACCURACY_DEFINITIONS,
  solarErrors,
} from './solar-accuracy';

const BERLIN = { latitude: 52.52, longitude: 13.4 };

describe('isDaytimeHour / isDaytimeAt', () => {
  it('takes an hour as daytime when its mean solar elevation is above 0°', () => {
    expect(isDaytimeHour(0.1)).toBe(true);
    expect(isDaytimeHour(0)).toBe(false);
    expect(isDaytimeHour(-12)).toBe(false);
  });

  it('has noon in Berlin as daytime and midnight as night, in June and in December', () => {
    for (const day of ['2025-06-21', '2025-12-21']) {
      expect(isDaytimeAt(Date.parse(`${day}T11:00:00Z`), BERLIN.latitude, BERLIN.longitude)).toBe(true);
      expect(isDaytimeAt(Date.parse(`${day}T23:00:00Z`), BERLIN.latitude, BERLIN.longitude)).toBe(false);
    }
  });
});

describe('errorStats', () => {
  it('gives MAE and RMSE over the finite pairs only', () => {
    expect(
      errorStats([
        [3, 1],
        [1, 1],
        [NaN, 5],
        [2, Infinity],
        [0, 2],
      ]),
    ).toEqual({ count: 3, mae: 4 / 3, rmse: Math.sqrt(8 / 3) });
  });

  it('is null, not NaN, when there is nothing to score', () => {
    expect(errorStats([])).toBeNull();
    expect(errorStats([[NaN, NaN]])).toBeNull();
  });
});

describe('solarErrors', () => {
  it('normalises MAE and RMSE by the capacity', () => {
    const errors = solarErrors(
      [
        [1000, 500],
        [2000, 2000],
      ],
      5000,
    )!;
    expect(errors).toMatchObject({ count: 2, mae: 250, nmae: 0.05 });
    expect(errors.rmse).toBeCloseTo(Math.sqrt(125_000), 9);
    expect(errors.nrmse).toBeCloseTo(Math.sqrt(125_000) / 5000, 12);
  });

  it('is null for no hours and refuses a capacity that is not positive', () => {
    expect(solarErrors([], 5000)).toBeNull();
    expect(() => solarErrors([[1, 1]], 0)).toThrow(RangeError);
    expect(() => solarErrors([[1, 1]], NaN)).toThrow(RangeError);
  });
});

describe('skillScore', () => {
  it('is 1 − RMSE / reference RMSE, and null against a perfect or missing reference', () => {
    const model = { count: 10, mae: 1, rmse: 30 };
    expect(skillScore(model, { count: 10, mae: 1, rmse: 60 })).toBeCloseTo(0.5, 12);
    expect(skillScore(model, { count: 10, mae: 0, rmse: 0 })).toBeNull();
    expect(skillScore(model, null)).toBeNull();
  });
});

describe('dailyClearSkyIndex and smartPersistence', () => {
  const clear = [0, 0, 100, 400, 800, 400, 100, 0];

  it('is energy over clear-sky energy of the hours with a measurement', () => {
    const measured = [0, 0, 50, 200, 400, 200, 50, 0];
    expect(dailyClearSkyIndex(measured, clear)).toBeCloseTo(0.5, 12);
    // Missing hours leave out their clear-sky energy too.
    expect(dailyClearSkyIndex([0, 0, 50, NaN, 400, 200, 50, 0], clear)).toBeCloseTo(700 / 1400, 12);
  });

  it('is null when the measured hours hold under half the clear-sky energy, or the day is dark', () => {
    expect(dailyClearSkyIndex([0, 0, 50, 200, NaN, NaN, NaN, 0], clear)).toBeNull();
    expect(dailyClearSkyIndex([0, 0, 0], [0, 0, 0])).toBeNull();
  });

  it('is clamped to 1.5', () => {
    expect(dailyClearSkyIndex([0, 0, 500, 2000, 4000, 2000, 500, 0], clear)).toBe(MAX_DAILY_CLEAR_SKY_INDEX);
  });

  it('scales today’s clear-sky curve by yesterday’s index, 0 in the dark', () => {
    const today = [0, 10, 120, 420, 780, 380, 90, 0];
    expect(smartPersistence([0, 0, 50, 200, 400, 200, 50, 0], clear, today)).toEqual(
      today.map((value) => value * 0.5),
    );
    expect(smartPersistence([NaN, NaN, NaN, NaN, NaN, NaN, NaN, NaN], clear, today)).toBeNull();
  });
});

describe('SOLAR_ACCURACY_DEFINITIONS', () => {
  it('states each metric in words', () => {
    const text = SOLAR_ACCURACY_DEFINITIONS.join('\n');
    for (const term of ['daytime hour', 'nMAE', 'nRMSE', 'smart persistence', 'skill']) {
      expect(text).toContain(term);
    }
  });
});
