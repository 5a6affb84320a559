import { Inject, Injectable } from '@nestjs/common';
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@solar/config';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts device credentials at rest with AES-256-GCM under SECRETS_KEY. The owner can read
 * them back (the API returns them), a database dump cannot. `context` (e.g. the source id and
 * the credential's name) is authenticated too, so a ciphertext copied to another row fails to open.
 */
@Injectable()
export class SecretBox {
  /**
   * Both keys are KeyObjects, made once. Handed a Buffer, Node 24's crypto first tries it as a
   * KeyObject and as a CryptoKey, each by a throw and a catch: an HMAC or a cipher then costs
   * 20–40 µs instead of ~5. A process checks each device's credential this way once (then by
   * its proven digest), so a fleet arriving cold or reconnecting to a new ingestor pays it.
   */
  private readonly key: KeyObject;
  /** Derived from SECRETS_KEY for digests alone, so no key serves two purposes. */
  private readonly digestKey: KeyObject;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'secretsKey'>) {
    this.key = createSecretKey(config.secretsKey);
    this.digestKey = createSecretKey(
      createHmac('sha256', config.secretsKey).update('solar secret digests v1').digest(),
    );
  }

  /**
   * A form of a secret that can check it but not give it back: HMAC-SHA256 under a key derived
   * from SECRETS_KEY, over `context` and the secret. Kept beside the sealed secret, it lets a
   * device be checked without a decryption; a database dump alone cannot test guesses against it,
   * even of a secret an owner chose.
   */
  digest(secret: string, context: string): Buffer {
    return createHmac('sha256', this.digestKey).update(`${context}\n${secret}`, 'utf8').digest();
  }

  /** Whether `given` is the secret `digest` was taken of, in constant time. */
  matches(given: string, digest: Buffer, context: string): boolean {
    const expected = this.digest(given, context);
    return digest.length === expected.length && timingSafeEqual(expected, digest);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) throw new Error('unknown secret format');
    const bytes = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}
