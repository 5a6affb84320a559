import { baselineLoad, baselineSolar } from './baseline';
import { HOUR_MS } from './pv-physics';
import { buildTimeline } from './timeline';

const SITE = { latitude: 47.66, longitude: 9.18, capacityWatts: null, batteryCapacityWh: null };
const START = Date.parse('2016-01-01T00:00:00Z');

/** A load history of `days` days: `base(day)` W at every hour but 18:00 UTC, which has 1,000 W more. */
function timelineOf(
  days: number,
  base: (day: number) => number,
  load = (day: number, hourOfDay: number) => base(day) + (hourOfDay === 18 ? 1000 : 0),
) {
  const history = Array.from({ length: days * 24 }, (_, hour) => ({
    hour: new Date(START + hour * HOUR_MS),
    solarPower: null,
    loadPower: load(Math.floor(hour / 24), hour % 24),
    stateOfCharge: null,
  }));
  return buildTimeline(SITE, history, [], START, START + (days + 1) * 24 * HOUR_MS);
}

describe('baselineLoad, the load profile', () => {
  it('is the same hour’s mean over the last 14 days when the level is steady', () => {
    const timeline = timelineOf(20, () => 400);
    const origin = 20 * 24;
    expect(baselineLoad(timeline, origin + 18, origin)).toBeCloseTo(1400, 6);
    expect(baselineLoad(timeline, origin + 3, origin)).toBeCloseTo(400, 6);
  });

  it('follows half of the last 3 days’ departure from the 14-day level', () => {
    // 11 days at 400 W, then 3 days at 700 W: the 14-day level is 400 + 300 · 3/14 + 1000/24.
    const timeline = timelineOf(14, (day) => (day < 11 ? 400 : 700));
    const origin = 14 * 24;
    const recentLevel = 700 + 1000 / 24;
    const fortnightLevel = (11 * 400 + 3 * 700) / 14 + 1000 / 24;
    const profile = (11 * 400 + 3 * 700) / 14;
    expect(baselineLoad(timeline, origin + 3, origin)).toBeCloseTo(
      profile + 0.5 * (recentLevel - fortnightLevel),
      6,
    );
  });

  it('never goes below zero', () => {
    // Nights near 0 W, days at 3 kW until the last 3 days, which are near 0 W all day: the night's
    // profile minus half the drop in level would be negative.
    const timeline = timelineOf(
      14,
      () => 0,
      (day, hourOfDay) => (day < 11 && hourOfDay >= 8 ? 3000 : 10),
    );
    expect(baselineLoad(timeline, 14 * 24 + 3, 14 * 24)).toBe(0);
  });
});

describe('baselineSolar, the physics-only solar', () => {
  const site = { ...SITE, capacityWatts: 5000 };
  const days = 3;
  const weather = Array.from({ length: days * 24 }, (_, hour) => ({
    hour: new Date(START + hour * HOUR_MS),
    temperature: 25,
    shortwaveRadiation: null,
    cloudCover: 0,
    weatherCode: 0,
    uvIndex: null,
    precipitation: 0,
  }));
  const timelineFor = (given: typeof site) =>
    buildTimeline(given, [], weather, START, START + days * 24 * HOUR_MS);

  it('faces the equator at 30° when the owner gave no orientation, and the installed array when given', () => {
    const assumed = baselineSolar(site, timelineFor(site));
    expect(baselineSolar({ ...site, orientation: { tilt: 30, azimuth: 180 } }, timelineFor(site))).toEqual(
      assumed,
    );

    // A north-facing wall in a Konstanz January sees the sky, never the sun: far less, all day.
    const wall = { ...site, orientation: { tilt: 90, azimuth: 0 } };
    const timeline = timelineFor(wall);
    const onWall = baselineSolar(wall, timeline);
    const noon = 11;
    expect(onWall[noon]).toBeGreaterThan(0);
    expect(onWall[noon]).toBeLessThan(0.3 * assumed[noon]);
    expect(onWall.every((power, hour) => power <= assumed[hour])).toBe(true);
  });
});
