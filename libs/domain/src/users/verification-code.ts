import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export function generateVerificationCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** Codes are kept as keyed hashes, so a database dump does not reveal live codes. */
export function hashVerificationCode(key: Buffer, userId: string, code: string): string {
  return createHmac('sha256', key).update(`${userId}:${code}`).digest('hex');
}

export function verificationCodeMatches(
  key: Buffer,
  userId: string,
  code: string,
  storedHash: string,
): boolean {
  const actual = Buffer.from(hashVerificationCode(key, userId, code), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
