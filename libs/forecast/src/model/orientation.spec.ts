import { seededRandom } from './gradient-boosting';
import { cellDerating, defaultOrientation, inferOrientation } from './orientation';
import { decompose, HOUR_MS, planeOfArray, sunGeometry } from './pv-physics';
import { buildTimeline } from './timeline';
import { SYNTHETIC_ORIENTATION, SYNTHETIC_SITE, syntheticSeries } from './model.fixtures';

const START = Date.parse('2024-02-01T00:00:00Z');
const DAYS = 150;
const { floor } = Math;
const series = syntheticSeries(START, DAYS, 9);
const end = START + DAYS * 86_400_000;

describe('inferOrientation', () => {
  it('finds a known orientation from clear days, with the weather’s GHI', () => {
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, series.weather, START, end);
    const fit = inferOrientation(timeline, 4000);
    expect(fit.source).toBe('weather');
    expect(fit.clearDays).toBeGreaterThan(20);
    expect(Math.abs(fit.orientation.tilt - SYNTHETIC_ORIENTATION.tilt)).toBeLessThanOrEqual(4);
    expect(Math.abs(fit.orientation.azimuth - SYNTHETIC_ORIENTATION.azimuth)).toBeLessThanOrEqual(8);
  });

  it('finds it roughly from the clear sky alone when there is no weather', () => {
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, [], START, end);
    const fit = inferOrientation(timeline, 4000);
    expect(fit.source).toBe('clear-sky');
    expect(Math.abs(fit.orientation.tilt - SYNTHETIC_ORIENTATION.tilt)).toBeLessThanOrEqual(8);
    expect(Math.abs(fit.orientation.azimuth - SYNTHETIC_ORIENTATION.azimuth)).toBeLessThanOrEqual(12);
  });

  it('takes the orientation the owner installed as it is, with the clear hours the scale is fitted on', () => {
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, series.weather, START, end);
    const installed = { tilt: 20, azimuth: 135 };
    const inferred = inferOrientation(timeline, 4000);
    const given = inferOrientation(timeline, 4000, installed);
    expect(given).toEqual({ ...inferred, orientation: installed, source: 'installed' });
    // However few clear days the history holds.
    const short = START + 3 * 86_400_000;
    const young = buildTimeline(SYNTHETIC_SITE, series.history, series.weather, START, short);
    expect(inferOrientation(young, 4000, installed)).toMatchObject({
      orientation: installed,
      source: 'installed',
    });
  });

  it('assumes an equator-facing 30° plane with too few clear days', () => {
    const short = START + 3 * 86_400_000;
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, series.weather, START, short);
    const fit = inferOrientation(timeline, 4000);
    expect(fit.source).toBe('default');
    expect(fit.orientation).toEqual({ tilt: 30, azimuth: 180 });
    expect(defaultOrientation(-33.9)).toEqual({ tilt: 30, azimuth: 0 });
  });
});

describe('inferOrientation on an array of known tilt and azimuth, with hot summers and cold winters', () => {
  // System 50's site and array (Golden, Colorado: 45° tilt, 158° azimuth), a year of hourly data.
  const site = { latitude: 39.74, longitude: -105.18, capacityWatts: 3500, batteryCapacityWh: null };
  const truth = { tilt: 45, azimuth: 158 };
  const start = Date.parse('2011-01-01T07:00:00Z');
  const days = 365;
  const hours = days * 24;
  const geometry = sunGeometry(start, hours, site.latitude, site.longitude);
  const random = seededRandom(11);
  const clearness = Array.from({ length: days }, () => (random() < 0.5 ? 0.95 : 0.3 + 0.5 * random()));
  const ghi = Float64Array.from(
    { length: hours },
    (_, hour) => geometry.clearGhiMean[hour] * clearness[floor(hour / 24)],
  );
  const plane = planeOfArray(geometry, decompose(geometry, ghi), truth);
  const air = Array.from({ length: hours }, (_, hour) => {
    const at = start + hour * HOUR_MS;
    const season = Math.cos((2 * Math.PI * (at / 86_400_000 - 196)) / 365.25);
    return 10 + 15 * season + 6 * Math.sin((2 * Math.PI * ((at / HOUR_MS - 7 - 9) % 24)) / 24);
  });
  const history = Array.from({ length: hours }, (_, hour) => ({
    hour: new Date(start + hour * HOUR_MS),
    solarPower: Math.min(3400, 3 * plane[hour] * cellDerating(plane[hour], air[hour])),
    loadPower: null,
    stateOfCharge: null,
  }));
  const weather = (withTemperature: boolean) =>
    history.map((observation, hour) => ({
      hour: observation.hour,
      temperature: withTemperature ? air[hour] : null,
      shortwaveRadiation: ghi[hour],
      cloudCover: null,
      weatherCode: null,
      uvIndex: null,
      precipitation: null,
    }));
  const end = start + hours * HOUR_MS;

  it('finds it within 2° of tilt and 4° of azimuth when the air temperature is known', () => {
    const fit = inferOrientation(buildTimeline(site, history, weather(true), start, end), 3500);
    expect(fit.source).toBe('weather');
    expect(Math.abs(fit.orientation.tilt - truth.tilt)).toBeLessThanOrEqual(2);
    expect(Math.abs(fit.orientation.azimuth - truth.azimuth)).toBeLessThanOrEqual(4);
  });

  it('tilts it too steep without the temperature: cold winters read as a steeper plane', () => {
    const fit = inferOrientation(buildTimeline(site, history, weather(false), start, end), 3500);
    expect(fit.orientation.tilt).toBeGreaterThan(truth.tilt + 2);
  });
});
