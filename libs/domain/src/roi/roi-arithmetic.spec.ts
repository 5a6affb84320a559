import { roundTo, startOfUtcDay } from './roi-arithmetic';

describe('roundTo', () => {
  it.each([
    [1.005, 2, 1.01],
    [-1.005, 2, -1.01],
    [2.675, 2, 2.68],
    [0.1 + 0.2, 3, 0.3],
    [1234.567 - 1230.1, 3, 4.467],
    [83.703125, 2, 83.7],
    [-99.504757, 2, -99.5],
    [0.1234565, 6, 0.123457],
    [1e-7, 6, 0],
  ])('roundTo(%p, %p) is %p', (value, places, expected) => {
    expect(roundTo(value, places)).toBe(expected);
  });

  it('never answers -0', () => {
    expect(Object.is(roundTo(-0.001, 2), 0)).toBe(true);
  });
});

describe('startOfUtcDay', () => {
  it('is the UTC midnight before', () => {
    expect(new Date(startOfUtcDay(new Date('2026-06-10T23:59:59.999Z'))).toISOString()).toBe(
      '2026-06-10T00:00:00.000Z',
    );
  });
});
