import { generateVerificationCode, hashVerificationCode, verificationCodeMatches } from './verification-code';

describe('verification codes', () => {
  const key = Buffer.alloc(32, 1);

  it('are six digits, leading zeros kept', () => {
    const codes = Array.from({ length: 500 }, generateVerificationCode);
    expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(490);
  });

  it('match only the same user, code and key', () => {
    const stored = hashVerificationCode(key, 'user-1', '012345');
    expect(verificationCodeMatches(key, 'user-1', '012345', stored)).toBe(true);
    expect(verificationCodeMatches(key, 'user-1', '012346', stored)).toBe(false);
    expect(verificationCodeMatches(key, 'user-2', '012345', stored)).toBe(false);
    expect(verificationCodeMatches(Buffer.alloc(32, 2), 'user-1', '012345', stored)).toBe(false);
    expect(verificationCodeMatches(key, 'user-1', '012345', 'abcd')).toBe(false);
  });

  it('are stored as keyed hashes, not in clear', () => {
    expect(hashVerificationCode(key, 'user-1', '012345')).not.toContain('012345');
  });
});
