import { hashUniform, seedFromText, valueNoise } from './synthetic-noise';

describe('synthetic noise', () => {
  it('hashUniform is fixed for its inputs, within [0, 1) and roughly uniform', () => {
    expect(hashUniform(7, 3, 12_345)).toBe(hashUniform(7, 3, 12_345));
    const samples = Array.from({ length: 20_000 }, (_, index) => hashUniform(42, 1, index));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThan(1);
    const buckets = new Array<number>(10).fill(0);
    for (const sample of samples) buckets[Math.floor(sample * 10)] += 1;
    for (const count of buckets) expect(Math.abs(count - 2_000)).toBeLessThan(200);
  });

  it('channels and seeds are independent streams', () => {
    const stream = (seed: number, channel: number) =>
      Array.from({ length: 50 }, (_, index) => hashUniform(seed, channel, index));
    expect(stream(1, 1)).not.toEqual(stream(1, 2));
    expect(stream(1, 1)).not.toEqual(stream(2, 1));
  });

  it('valueNoise passes through its knots and moves smoothly between them', () => {
    const period = 60_000;
    expect(valueNoise(5, 2, 3 * period, period)).toBeCloseTo(hashUniform(5, 2, 3), 12);
    let largestStep = 0;
    for (let at = 0; at < 100 * period; at += period / 100) {
      largestStep = Math.max(
        largestStep,
        Math.abs(valueNoise(5, 2, at + period / 100, period) - valueNoise(5, 2, at, period)),
      );
    }
    // Smoothstep's steepest slope is 1.5 × the knot difference per period.
    expect(largestStep).toBeLessThan(0.016);
  });

  it('seedFromText gives a 32-bit seed that differs between source ids', () => {
    const a = seedFromText('0b7f2f3c-2a7e-4a57-9a43-4d35c6d3e2a1');
    expect(Number.isInteger(a) && a >= 0 && a < 2 ** 32).toBe(true);
    expect(seedFromText('0b7f2f3c-2a7e-4a57-9a43-4d35c6d3e2a2')).not.toBe(a);
  });
});
