/**
 * Seeded randomness as a pure function of (seed, channel, index) rather than a stream: the
 * weather of a given day or the load of a given five minutes is the same whichever instant a
 * series starts at, so the 30-day history and the live generator of one source tell one story.
 */

/** A 32-bit seed from any text (FNV-1a), e.g. a source id. */
export function seedFromText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Uniform in [0, 1), fixed for (seed, channel, index): an integer hash with good avalanche. */
export function hashUniform(seed: number, channel: number, index: number): number {
  let h = (seed ^ Math.imul(channel + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (index | 0), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h ^ Math.floor(index / 4_294_967_296), 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 15;
  return (h >>> 0) / 4_294_967_296;
}

/**
 * Smooth noise in [0, 1): random values at knots `period` apart, joined by a smoothstep. Slow
 * drifts (clouds passing, the fridge cycling) without the jumps of independent samples.
 */
export function valueNoise(seed: number, channel: number, at: number, period: number): number {
  const position = at / period;
  const knot = Math.floor(position);
  const fraction = position - knot;
  const eased = fraction * fraction * (3 - 2 * fraction);
  const from = hashUniform(seed, channel, knot);
  const to = hashUniform(seed, channel, knot + 1);
  return from + (to - from) * eased;
}
