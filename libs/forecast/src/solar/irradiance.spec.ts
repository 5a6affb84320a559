import {
  clearSkyGhi,
  clearSkyIndex,
  dayOfYear,
  extraterrestrialIrradiance,
  haurwitzGhi,
  SOLAR_CONSTANT,
} from './irradiance';
import { solarPosition } from './solar-position';

const BERLIN = { latitude: 52.52, longitude: 13.4 };
const minutesOf = (day: string, step: number) =>
  Array.from(
    { length: 1440 / step },
    (_, index) => new Date(Date.parse(`${day}T00:00:00Z`) + index * step * 60_000),
  );

describe('extraterrestrialIrradiance', () => {
  it('stays within 1361 W/m² ± 3.4 % all year, highest at the turn of the year, lowest in early July', () => {
    const year = Array.from({ length: 366 }, (_, index) => new Date(Date.UTC(2024, 0, 1 + index, 12)));
    const values = year.map(extraterrestrialIrradiance);
    for (const value of values) {
      expect(value).toBeGreaterThanOrEqual(SOLAR_CONSTANT * (1 - 0.034));
      expect(value).toBeLessThanOrEqual(SOLAR_CONSTANT * (1 + 0.034));
    }
    // Perihelion falls on January 2–5; the formula peaks at the turn of the year.
    const highest = dayOfYear(year[values.indexOf(Math.max(...values))]);
    expect(Math.min(highest, 367 - highest)).toBeLessThanOrEqual(4);
    expect(Math.abs(dayOfYear(year[values.indexOf(Math.min(...values))]) - 184)).toBeLessThanOrEqual(3);
  });

  it('counts days of the UTC year from 1', () => {
    expect(dayOfYear(new Date('2025-01-01T00:00:00Z'))).toBe(1);
    expect(dayOfYear(new Date('2025-12-31T23:59:59Z'))).toBe(365);
    expect(dayOfYear(new Date('2024-12-31T12:00:00Z'))).toBe(366);
  });
});

describe('clearSkyGhi (Haurwitz)', () => {
  it('is exactly 0 whenever the sun is at or below the horizon, positive whenever it is above', () => {
    for (const day of ['2025-03-20', '2025-06-21', '2025-12-21']) {
      for (const at of minutesOf(day, 5)) {
        const { elevation } = solarPosition(at, BERLIN.latitude, BERLIN.longitude);
        const ghi = clearSkyGhi(at, BERLIN.latitude, BERLIN.longitude);
        if (elevation <= 0) expect(ghi).toBe(0);
        else expect(ghi).toBeGreaterThan(0);
      }
    }
  });

  it('is 0 at midnight and hundreds of W/m² at solar noon', () => {
    expect(clearSkyGhi(new Date('2025-06-21T23:00:00Z'), BERLIN.latitude, BERLIN.longitude)).toBe(0);
    // Solar noon in Berlin is about 11:07 UTC in June (13.4°E, equation of time −2 min).
    const noon = clearSkyGhi(new Date('2025-06-21T11:07:00Z'), BERLIN.latitude, BERLIN.longitude);
    expect(noon).toBeGreaterThan(800);
    expect(noon).toBeLessThan(1000);
  });

  it('is nearly symmetric around solar noon', () => {
    const { longitude, latitude } = BERLIN;
    // Solar noon from the hour angle: 0 at noon, 15° per hour.
    const guess = new Date('2025-06-21T11:00:00Z');
    const { hourAngle } = solarPosition(guess, latitude, longitude);
    const noon = guess.getTime() - (hourAngle / 15) * 3_600_000;
    for (const hours of [1, 2, 4, 6]) {
      const morning = clearSkyGhi(new Date(noon - hours * 3_600_000), latitude, longitude);
      const afternoon = clearSkyGhi(new Date(noon + hours * 3_600_000), latitude, longitude);
      expect(Math.abs(morning - afternoon) / Math.max(morning, afternoon)).toBeLessThan(0.01);
    }
  });

  it('follows the published formula and never exceeds 1098 · e^−0.059', () => {
    expect(haurwitzGhi(90)).toBeCloseTo(1098 * Math.exp(-0.059), 9);
    expect(haurwitzGhi(30)).toBeCloseTo(1098 * 0.5 * Math.exp(-0.118), 9);
    expect(haurwitzGhi(0)).toBe(0);
    expect(haurwitzGhi(-12)).toBe(0);
  });
});

describe('clearSkyIndex', () => {
  it('is the ratio to clear sky, clamped, and null when the clear sky is too dark to compare', () => {
    expect(clearSkyIndex(400, 800)).toBe(0.5);
    expect(clearSkyIndex(2000, 800)).toBe(1.5);
    expect(clearSkyIndex(-5, 800)).toBe(0);
    expect(clearSkyIndex(3, 5)).toBeNull();
    expect(clearSkyIndex(0, 0)).toBeNull();
    expect(clearSkyIndex(Number.NaN, 800)).toBeNull();
  });
});
