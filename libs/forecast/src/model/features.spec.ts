import { FEATURE_NAMES, featureContext, featureRows, FeatureSet, readableFeatures } from './features';
import { fitPvModel } from './pv-model';
import { buildTimeline } from './timeline';
import { SYNTHETIC_SITE, syntheticSeries } from './model.fixtures';

const START = Date.parse('2024-04-01T00:00:00Z');
const DAYS = 40;
const series = syntheticSeries(START, DAYS, 5);
const end = START + DAYS * 86_400_000;
const sets: FeatureSet[] = ['solarHistory', 'solarWeather', 'loadHistory', 'loadWeather'];

function contextFor(history = series.history) {
  const timeline = buildTimeline(SYNTHETIC_SITE, history, series.weather, START, end);
  return featureContext(timeline, fitPvModel(timeline, 4000, 3.2), 4000);
}

describe('features', () => {
  const context = contextFor();
  const origin = 30 * 24 + 5;
  const targets = [origin, origin + 7, origin + 30, origin + 100, origin + 167];
  const origins = targets.map(() => origin);

  it.each(sets)('%s: one value per named feature, finite where the data are', (set) => {
    const rows = featureRows(context, set, targets, origins);
    expect(rows).toHaveLength(targets.length * FEATURE_NAMES[set].length);
    const width = FEATURE_NAMES[set].length;
    const horizon = FEATURE_NAMES[set].indexOf('horizon');
    expect(targets.map((_, row) => rows[row * width + horizon])).toEqual([1, 8, 31, 101, 168]);
  });

  it.each(sets)('%s: reads nothing of the telemetry at or after the origin (no leakage)', (set) => {
    const before = featureRows(context, set, targets, origins);
    const cutoff = START + origin * 3_600_000;
    const scrambled = series.history.map((observation) =>
      observation.hour.getTime() >= cutoff
        ? { ...observation, solarPower: 1234, loadPower: 4321, stateOfCharge: 12 }
        : observation,
    );
    // Same physical model, so only the telemetry differs.
    const timeline = buildTimeline(SYNTHETIC_SITE, scrambled, series.weather, START, end);
    const after = featureRows(featureContext(timeline, context.pv, 4000), set, targets, origins);
    expect(Array.from(after)).toEqual(Array.from(before));
  });

  it('hides the weather-based performance ratio when asked, and only it', () => {
    const width = FEATURE_NAMES.solarWeather.length;
    const index = FEATURE_NAMES.solarWeather.indexOf('performance72h');
    const plain = featureRows(context, 'solarWeather', targets, origins);
    const masked = featureRows(context, 'solarWeather', targets, origins, {
      maskPerformance: targets.map(() => 1),
    });
    for (let row = 0; row < targets.length; row++) {
      for (let column = 0; column < width; column++) {
        if (column === index) expect(masked[row * width + column]).toBeNaN();
        else expect(Object.is(masked[row * width + column], plain[row * width + column])).toBe(true);
      }
    }
  });

  it('gives the solar trees without weather no calendar, and the others the calendar', () => {
    const calendar = ['dayOfYearSin', 'dayOfYearCos', 'monthSin', 'monthCos'];
    expect(FEATURE_NAMES.solarHistory.filter((name) => calendar.includes(name))).toEqual([]);
    for (const set of ['solarWeather', 'loadHistory', 'loadWeather'] as const) {
      expect(FEATURE_NAMES[set]).toEqual(expect.arrayContaining(calendar));
    }
  });

  it("gives a stored model's rows in its own features, those an earlier version trained on too", () => {
    // The solar trees without weather read the calendar after the hour until it was dropped.
    const earlier = ['hourSin', 'hourCos', 'dayOfYearSin', 'dayOfYearCos', 'monthSin', 'monthCos'];
    const names = [...earlier, ...FEATURE_NAMES.solarHistory.slice(2)];
    expect(readableFeatures('solarHistory', names)).toBe(true);
    const rows = featureRows(context, 'solarHistory', targets, origins, { names });
    const current = featureRows(context, 'solarHistory', targets, origins);
    const weather = featureRows(context, 'solarWeather', targets, origins);
    const own = FEATURE_NAMES.solarHistory.length;
    for (let row = 0; row < targets.length; row++) {
      const line = Array.from(rows.subarray(row * names.length, (row + 1) * names.length));
      // The calendar as the weather model's rows have it, the rest as today's rows.
      const weatherRow = weather.subarray(row * FEATURE_NAMES.solarWeather.length);
      expect(line.slice(2, 6)).toEqual(
        ['dayOfYearSin', 'dayOfYearCos', 'monthSin', 'monthCos'].map(
          (name) => weatherRow[FEATURE_NAMES.solarWeather.indexOf(name)],
        ),
      );
      expect([...line.slice(0, 2), ...line.slice(6)]).toEqual(
        Array.from(current.subarray(row * own, (row + 1) * own)),
      );
    }
  });

  it('refuses features it does not compute, or one twice', () => {
    expect(readableFeatures('solarHistory', [...FEATURE_NAMES.solarHistory, 'shortwave'])).toBe(false);
    expect(readableFeatures('loadHistory', ['hourSin', 'hourSin'])).toBe(false);
    expect(() => featureRows(context, 'solarHistory', targets, origins, { names: ['nonsense'] })).toThrow(
      'featureRows: solarHistory has no features nonsense',
    );
  });
});
