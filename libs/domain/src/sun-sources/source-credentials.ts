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

const mqttContext = (sourceId: string) => `${sourceId}:mqttApiKey`;
const webhookContext = (sourceId: string) => `${sourceId}:webhookSecret`;

/**
 * Seals a source's device credentials with their digests, opens them for their owner, checks
 * what a device presents, and tells a device how to connect. A credential's first check costs an
 * HMAC against the stored digest, not a decryption; the next ones a plain hash (`proven`).
 */
@Injectable()
export class SourceCredentials {
  /**
   * Digests of credentials stored without one, by source, purpose and sealed value. Every seal
   * has its own random nonce, so a renewed credential is a new entry and the old one is never
   * served for it.
   */
  private readonly opened = new Map<string, Buffer>();
  /**
   * Credentials a device has presented correctly, as their SHA-256, by source, purpose and sealed
   * value: a device's next message is checked by one hash, half an HMAC's cost (creating the
   * HMAC was most of the webhook's check). Unkeyed, but only in this process's memory, beside the
   * key that opens every sealed credential; a renewed credential is a new entry.
   */
  private readonly proven = new Map<string, Buffer>();

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
    return this.matches(given, source.mqttApiKeyEncrypted, source.mqttApiKeyDigest, mqttContext(source.id));
  }

  /** Whether `given` (a webhook message's `key`) is the source's secret, in constant time. */
  webhookSecretMatches(source: WebhookCredential, given: string): boolean {
    return this.matches(
      given,
      source.webhookSecretEncrypted,
      source.webhookSecretDigest,
      webhookContext(source.id),
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

  /** A credential stored without a digest is checked against the digest of it opened. */
  private matches(given: string, sealed: string | null, digest: Buffer | null, context: string): boolean {
    if (!sealed) return false;
    const key = `${context}:${sealed}`;
    const proven = this.proven.get(key);
    if (proven) return timingSafeEqual(sha256(given), proven);
    if (!this.box.matches(given, digest ?? this.openedDigest(key, sealed, context), context)) return false;
    keep(this.proven, key, sha256(given));
    return true;
  }

  private openedDigest(key: string, sealed: string, context: string): Buffer {
    let digest = this.opened.get(key);
    if (!digest) {
      digest = this.box.digest(this.box.open(sealed, context), context);
      keep(this.opened, key, digest);
    }
    return digest;
  }
}

const sha256 = (value: string) => hash('sha256', value, 'buffer');

/** Adds an entry, the oldest going past MAX_KEPT_DIGESTS. */
function keep(kept: Map<string, Buffer>, key: string, value: Buffer): void {
  if (kept.size >= MAX_KEPT_DIGESTS) kept.delete(kept.keys().next().value!);
  kept.set(key, value);
}
