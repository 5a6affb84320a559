import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time independent of where they differ, or of their lengths. */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected)) && given.length === expected.length;
}
