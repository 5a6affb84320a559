import { clearSkyGhi } from '../solar/irradiance';
import {
  cosIncidenceAtMidHour,
  decompose,
  erbsDiffuseFraction,
  HOUR_MS,
  planeOfArray,
  SUBSTEPS,
  sunGeometry,
} from './pv-physics';

const MUNICH = { latitude: 48.1, longitude: 11.6 };
const day = (date: string, days = 1) =>
  sunGeometry(Date.parse(`${date}T00:00:00Z`), 24 * days, MUNICH.latitude, MUNICH.longitude);

describe('sunGeometry', () => {
  it('has zero clear-sky irradiance in every hour the sun never rises, and only then', () => {
    for (const date of ['2024-03-20', '2024-06-21', '2024-12-21']) {
      const geometry = day(date);
      for (let hour = 0; hour < 24; hour++) {
        const start = geometry.start + hour * HOUR_MS;
        const lit = Array.from({ length: SUBSTEPS }, (_, step) =>
          clearSkyGhi(
            new Date(start + ((step + 0.5) * HOUR_MS) / SUBSTEPS),
            MUNICH.latitude,
            MUNICH.longitude,
          ),
        ).some((ghi) => ghi > 0);
        if (lit) expect(geometry.clearGhiMean[hour]).toBeGreaterThan(0);
        else expect(geometry.clearGhiMean[hour]).toBe(0);
      }
      // Midnight UTC is night in Munich all year.
      expect(geometry.clearGhiMean[0]).toBe(0);
    }
  });

  it('gives the sunrise hour a fraction of the next hour', () => {
    const geometry = day('2024-03-20');
    const sunrise = Array.from(geometry.clearGhiMean).findIndex((ghi) => ghi > 0);
    expect(geometry.clearGhiMean[sunrise]).toBeLessThan(0.5 * geometry.clearGhiMean[sunrise + 1]);
  });
});

describe('erbsDiffuseFraction', () => {
  it('is all diffuse under thick cloud, 0.165 under a clear sky, and continuous at its breakpoints', () => {
    expect(erbsDiffuseFraction(0)).toBe(1);
    expect(erbsDiffuseFraction(0.9)).toBe(0.165);
    expect(Math.abs(erbsDiffuseFraction(0.22) - erbsDiffuseFraction(0.2201))).toBeLessThan(0.01);
    expect(Math.abs(erbsDiffuseFraction(0.8) - erbsDiffuseFraction(0.8001))).toBeLessThan(0.01);
    for (let kt = 0; kt <= 1.2; kt += 0.01) {
      expect(erbsDiffuseFraction(kt)).toBeGreaterThanOrEqual(0.16);
      expect(erbsDiffuseFraction(kt)).toBeLessThanOrEqual(1);
    }
  });
});

describe('planeOfArray', () => {
  const geometry = day('2024-12-21');
  const components = decompose(geometry, geometry.clearGhiMean);

  it('returns the GHI itself for a horizontal plane', () => {
    const plane = planeOfArray(geometry, components, { tilt: 0, azimuth: 180 });
    for (let hour = 0; hour < 24; hour++) expect(plane[hour]).toBeCloseTo(geometry.clearGhiMean[hour], 6);
  });

  it('gives a south-facing tilted plane more than the horizontal at a winter noon, a north-facing one less', () => {
    const noon = 11;
    const south = planeOfArray(geometry, components, { tilt: 45, azimuth: 180 })[noon];
    const north = planeOfArray(geometry, components, { tilt: 45, azimuth: 0 })[noon];
    expect(south).toBeGreaterThan(1.5 * geometry.clearGhiMean[noon]);
    expect(north).toBeLessThan(0.5 * geometry.clearGhiMean[noon]);
    expect(cosIncidenceAtMidHour(geometry, { tilt: 45, azimuth: 180 })[noon]).toBeGreaterThan(0.85);
  });

  it('is zero at night and NaN where the GHI is unknown', () => {
    const ghi = Array.from(geometry.clearGhiMean, (value, hour) => (hour === 12 ? NaN : value));
    const plane = planeOfArray(geometry, decompose(geometry, ghi), { tilt: 30, azimuth: 180 });
    expect(plane[0]).toBe(0);
    expect(plane[12]).toBeNaN();
    expect(plane[11]).toBeGreaterThan(0);
  });

  it('sees a west-facing plane peak after an east-facing one', () => {
    const summer = day('2024-06-21');
    const clear = decompose(summer, summer.clearGhiMean);
    const peak = (azimuth: number) => {
      const plane = planeOfArray(summer, clear, { tilt: 40, azimuth });
      return plane.indexOf(Math.max(...plane));
    };
    expect(peak(270)).toBeGreaterThan(peak(90) + 3);
  });
});
