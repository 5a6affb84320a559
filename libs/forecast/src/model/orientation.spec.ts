import { defaultOrientation, inferOrientation } from './orientation';
import { buildTimeline } from './timeline';
import { SYNTHETIC_ORIENTATION, SYNTHETIC_SITE, syntheticSeries } from './test-fixtures';

const START = Date.parse('2024-02-01T00:00:00Z');
const DAYS = 150;
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

  it('assumes an equator-facing 30° plane with too few clear days', () => {
    const short = START + 3 * 86_400_000;
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, series.weather, START, short);
    const fit = inferOrientation(timeline, 4000);
    expect(fit.source).toBe('default');
    expect(fit.orientation).toEqual({ tilt: 30, azimuth: 180 });
    expect(defaultOrientation(-33.9)).toEqual({ tilt: 30, azimuth: 0 });
  });
});
