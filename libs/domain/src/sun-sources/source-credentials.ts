import { Inject, Injectable } from '@nestjs/common';
import { hash, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SecretBox } from '@solar/core';
import { mqttClientId, mqttTopic, webhookUrl } from './credentials';
import { ConnectionDetails } from './sun-source-view';
import { SunSourceEntity } from './sun-source.entity';

/**
 * Digests of credentials set before digests were stored, opened once and kept, and credentials
 * proven by a device: a fleet's worth of each per process; past it the oldest go.
 */
export const MAX_KEPT_DIGESTS = 100_000;

type MqttCredential = Pick<SunSourceEntity, 'id' | 'mqttApiKeyEncrypted' | 'mqttApiKeyDigest'>;
type WebhookCredential = Pick<SunSourceEntity, 'id' | 'webhookSecretEncrypted' | 'webhookSecretDigest'>;

type Purpose = 'mqttApiKey' | 'webhookSecret';
const contextOf = (sourceId: string, purpose: Purpose) => `${sourceId}:${purpose}`;
const mqttContext = (sourceId: string) => contextOf(sourceId, 'mqttApiKey');
const webhookContext = (sourceId: string) => contextOf(sourceId, 'webhookSecret');

/** A digest kept in memory for a source's credential, valid while that credential is `sealed`. */
interface KeptDigest {
  sealed: string;
  digest: Buffer;
}
/** Kept digests by purpose, then by source id (a string the source's entity already holds). */
type KeptDigests = Record<Purpose, Map<string, KeptDigest>>;
const keptDigests = (): KeptDigests => ({ mqttApiKey: new Map(), webhookSecret: new Map() });

/**
 * Seals a source's device credentials with their digests, opens them for their owner, checks
 * what a device presents, and tells a device how to connect. A credential's first check costs an
 * HMAC against the stored digest, not a decryption; the next ones a plain hash (`proven`).
 */
@Injectable()
export class SourceCredentials {
  /**
   * Digests of credentials stored without one, by purpose and source, each with the sealed value
   * it was opened from. Every seal has its own random nonce, so a renewed credential does not
   * match its source's entry and is opened again.
   */
  private readonly opened = keptDigests();
  /**
   * Credentials a device has presented correctly, as their SHA-256, by purpose and source, each
   * with the sealed value it was proven against: a device's next message is checked by one hash,
   * half an HMAC's cost (creating the HMAC was most of the webhook's check). Unkeyed, but only in
   * this process's memory, beside the key that opens every sealed credential; a renewed
   * credential does not match the entry, and replaces it once proven.
   */
  private readonly proven = keptDigests();

  constructor(
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The columns of a new or regenerated MQTT key. */
  mqttApiKeyFields(
    sourceId: string,
    key: string,
  ): Pick<SunSourceEntity, 'mqttApiKeyEncrypted' | 'mqttApiKeyDigest'> {
    const [sealed, digest] = this.sealWithDigest(key, mqttContext(sourceId));
    return { mqttApiKeyEncrypted: sealed, mqttApiKeyDigest: digest };
  }

  /** The columns of a new or rotated webhook secret. */
  webhookSecretFields(
    sourceId: string,
    secret: string,
  ): Pick<SunSourceEntity, 'webhookSecretEncrypted' | 'webhookSecretDigest'> {
    const [sealed, digest] = this.sealWithDigest(secret, webhookContext(sourceId));
    return { webhookSecretEncrypted: sealed, webhookSecretDigest: digest };
  }

  mqttApiKeyOf(source: Pick<SunSourceEntity, 'id' | 'mqttApiKeyEncrypted'>): string | null {
    return source.mqttApiKeyEncrypted
      ? this.box.open(source.mqttApiKeyEncrypted, mqttContext(source.id))
      : null;
  }

  webhookSecretOf(source: Pick<SunSourceEntity, 'id' | 'webhookSecretEncrypted'>): string | null {
    return source.webhookSecretEncrypted
      ? this.box.open(source.webhookSecretEncrypted, webhookContext(source.id))
      : null;
  }

  /** Whether `given` is the source's MQTT key, in constant time; false for a source without one. */
  mqttApiKeyMatches(source: MqttCredential, given: string): boolean {
    return this.matches(source.id, 'mqttApiKey', given, source.mqttApiKeyEncrypted, source.mqttApiKeyDigest);
  }

  /** Whether `given` (a webhook message's `key`) is the source's secret, in constant time. */
  webhookSecretMatches(source: WebhookCredential, given: string): boolean {
    return this.matches(
      source.id,
      'webhookSecret',
      given,
      source.webhookSecretEncrypted,
      source.webhookSecretDigest,
    );
  }

  connectionDetails(source: SunSourceEntity): ConnectionDetails {
    const mqtt = source.connectionType === 'MQTT';
    return {
      mqttBrokerHost: mqtt ? this.config.mqtt.publicHost : null,
      mqttBrokerPort: mqtt ? this.config.mqtt.publicPort : null,
      mqttClientId: mqtt ? mqttClientId(source.id) : null,
      mqttApiKey: mqtt ? this.mqttApiKeyOf(source) : null,
      mqttTopic: mqtt ? mqttTopic(this.config.mqtt.topicPrefix, source.id) : null,
      webhookUrl: mqtt ? null : webhookUrl(this.config.publicBaseUrl, source.id),
      webhookSecret: mqtt ? null : this.webhookSecretOf(source),
    };
  }

  private sealWithDigest(secret: string, context: string): [string, Buffer] {
    return [this.box.seal(secret, context), this.box.digest(secret, context)];
  }

  /**
   * A credential stored without a digest is checked against the digest of it opened. The kept
   * entries are found by source id, not by a key built per message: hashing a fresh string of
   * the id and the sealed value on every check cost more than the SHA-256 it saved.
   */
  private matches(
    sourceId: string,
    purpose: Purpose,
    given: string,
    sealed: string | null,
    digest: Buffer | null,
  ): boolean {
    if (!sealed) return false;
    const proven = this.proven[purpose].get(sourceId);
    if (proven?.sealed === sealed) return timingSafeEqual(sha256(given), proven.digest);
    const context = contextOf(sourceId, purpose);
    const expected = digest ?? this.openedDigest(sourceId, purpose, sealed, context);
    if (!this.box.matches(given, expected, context)) return false;
    keep(this.proven[purpose], sourceId, { sealed, digest: sha256(given) });
    return true;
  }

  private openedDigest(sourceId: string, purpose: Purpose, sealed: string, context: string): Buffer {
    const opened = this.opened[purpose].get(sourceId);
    if (opened?.sealed === sealed) return opened.digest;
    const digest = this.box.digest(this.box.open(sealed, context), context);
    keep(this.opened[purpose], sourceId, { sealed, digest });
    return digest;
  }
}

const sha256 = (value: string) => hash('sha256', value, 'buffer');

/** Adds or replaces a source's entry, the oldest going past MAX_KEPT_DIGESTS. */
function keep(kept: Map<string, KeptDigest>, sourceId: string, entry: KeptDigest): void {
  if (!kept.has(sourceId) && kept.size >= MAX_KEPT_DIGESTS) kept.delete(kept.keys().next().value!);
  kept.set(sourceId, entry);
}
