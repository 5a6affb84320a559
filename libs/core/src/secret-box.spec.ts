import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { secretsEqual } from './constant-time';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox({ secretsKey: Buffer.alloc(32, 3) });

  it('opens what it sealed, with the same context', () => {
    const sealed = box.seal('ak_0123', 'source-1:mqtt');
    expect(sealed).toMatch(/^v1\.[\w-]+$/);
    expect(sealed).not.toContain('ak_0123');
    expect(box.open(sealed, 'source-1:mqtt')).toBe('ak_0123');
  });

  it('seals the same secret differently every time', () => {
    expect(box.seal('same', 'c')).not.toEqual(box.seal('same', 'c'));
  });

  it('refuses another context, another key and a tampered ciphertext', () => {
    const sealed = box.seal('secret', 'source-1:mqtt');
    expect(() => box.open(sealed, 'source-2:mqtt')).toThrow();
    expect(() => new SecretBox({ secretsKey: Buffer.alloc(32, 4) }).open(sealed, 'source-1:mqtt')).toThrow();
    // One bit of the ciphertext flipped. (Editing the text could leave the bytes as they were:
    // the last base64 character carries bits the decoder ignores, which made this test flaky.)
    const bytes = Buffer.from(sealed.slice('v1.'.length), 'base64url');
    bytes[bytes.length - 1] ^= 1;
    const tampered = `v1.${bytes.toString('base64url')}`;
    expect(() => box.open(tampered, 'source-1:mqtt')).toThrow();
    expect(() => box.open('v2.abc', 'source-1:mqtt')).toThrow('unknown secret format');
  });

  it('opens what was sealed before, with the bytes of SECRETS_KEY as the key', () => {
    // The layout of a stored value: v1.base64url(iv ‖ tag ‖ ciphertext), the context as AAD.
    const iv = Buffer.alloc(12, 7);
    const cipher = createCipheriv('aes-256-gcm', Buffer.alloc(32, 3), iv);
    cipher.setAAD(Buffer.from('source-1:mqtt', 'utf8'));
    const ciphertext = Buffer.concat([cipher.update('ak_0123', 'utf8'), cipher.final()]);
    const stored = `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    expect(box.open(stored, 'source-1:mqtt')).toBe('ak_0123');
  });
});

describe('secretsEqual', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', '', true],
    ['', 'a', false],
  ])('%p vs %p is %p', (a, b, expected) => {
    expect(secretsEqual(a, b)).toBe(expected);
  });
});

describe('SecretBox digests', () => {
  const box = new SecretBox({ secretsKey: Buffer.alloc(32, 3) });

  it('match the secret they were taken of, under the same context, and nothing else', () => {
    const digest = box.digest('ak_0123', 'source-1:mqttApiKey');
    expect(digest).toHaveLength(32);
    expect(box.matches('ak_0123', digest, 'source-1:mqttApiKey')).toBe(true);
    expect(box.matches('ak_0124', digest, 'source-1:mqttApiKey')).toBe(false);
    expect(box.matches('', digest, 'source-1:mqttApiKey')).toBe(false);
    expect(box.matches('ak_0123', digest, 'source-2:mqttApiKey')).toBe(false);
    expect(box.matches('ak_0123', digest.subarray(0, 16), 'source-1:mqttApiKey')).toBe(false);
  });

  it('are the ones stored before: HMAC-SHA256 under a key derived from SECRETS_KEY', () => {
    const digestKey = createHmac('sha256', Buffer.alloc(32, 3)).update('solar secret digests v1').digest();
    const stored = createHmac('sha256', digestKey).update('source-1:mqttApiKey\nak_0123').digest();
    expect(box.digest('ak_0123', 'source-1:mqttApiKey')).toEqual(stored);
    expect(box.matches('ak_0123', stored, 'source-1:mqttApiKey')).toBe(true);
  });

  it('depend on SECRETS_KEY, and are not a plain hash of the secret', () => {
    const other = new SecretBox({ secretsKey: Buffer.alloc(32, 4) });
    expect(other.digest('ak_0123', 'c')).not.toEqual(box.digest('ak_0123', 'c'));
    expect(box.digest('ak_0123', 'c')).not.toEqual(createHash('sha256').update('c\nak_0123').digest());
  });
});
