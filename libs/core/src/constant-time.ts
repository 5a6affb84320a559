import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The SHA-256 of a secret: what secrets are compared by, and a form of a high-entropy secret
 * (a device key, a webhook secret) that may be kept in memory where the secret may not.
 */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether `given` is the secret whose digest is `expected`, in constant time. */
export function matchesSecretDigest(given: string, expected: Buffer): boolean {
  return timingSafeEqual(secretDigest(given), expected);
}

/** Compares two secrets in time independent of where they differ, or of their lengths. */
export function secretsEqual(given: string, expected: string): boolean {
  return matchesSecretDigest(given, secretDigest(expected)) && given.length === expected.length;
}
