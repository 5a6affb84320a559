import { cloudCoverTransmission, cloudTransmission, weatherCodeTransmission } from './weather-codes';

describe('cloud attenuation', () => {
  it.each([
    [0, 0.98],
    [1, 0.88],
    [2, 0.65],
    [3, 0.35],
    [45, 0.3],
    [53, 0.3],
    [63, 0.22],
    [75, 0.2],
    [81, 0.4],
    [86, 0.3],
    [95, 0.18],
  ])('weather code %i lets %f of the clear sky through', (code, transmission) => {
    expect(weatherCodeTransmission(code)).toBe(transmission);
  });

  it('knows nothing of codes outside the WMO table', () => {
    expect(weatherCodeTransmission(4)).toBeNull();
    expect(weatherCodeTransmission(-1)).toBeNull();
    expect(weatherCodeTransmission(Number.NaN)).toBeNull();
  });

  it('follows Kasten & Czeplak for cloud cover, falling from 1 to 0.25', () => {
    expect(cloudCoverTransmission(0)).toBe(1);
    expect(cloudCoverTransmission(100)).toBeCloseTo(0.25, 10);
    expect(cloudCoverTransmission(50)).toBeCloseTo(1 - 0.75 * 0.5 ** 3.4, 10);
    expect(cloudCoverTransmission(150)).toBeCloseTo(0.25, 10);
  });

  it('prefers cloud cover over the weather code and gives null with neither', () => {
    expect(cloudTransmission(0, 3)).toBe(1);
    expect(cloudTransmission(Number.NaN, 3)).toBe(0.35);
    expect(cloudTransmission(Number.NaN, Number.NaN)).toBeNull();
  });
});
