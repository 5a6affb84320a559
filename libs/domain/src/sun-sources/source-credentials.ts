import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SecretBox } from '@solar/core';
import { mqttClientId, mqttTopic, webhookUrl } from './credentials';
import { ConnectionDetails } from './sun-source-view';
import { SunSourceEntity } from './sun-source.entity';

/**
 * Digests of credentials set before digests were stored, opened once and kept: a fleet's worth
 * per process; past it the oldest go.
 */
export const MAX_KEPT_DIGESTS = 100_000;

type MqttCredential = Pick<SunSourceEntity, 'id' | 'mqttApiKeyEncrypted' | 'mqttApiKeyDigest'>;
type WebhookCredential = Pick<SunSourceEntity, 'id' | 'webhookSecretEncrypted' | 'webhookSecretDigest'>;

const mqttContext = (sourceId: string) => `${sourceId}:mqttApiKey`;
const webhookContext = (sourceId: string) => `${sourceId}:webhookSecret`;

/**
 * Seals a source's device credentials with their digests, opens them for their owner, checks
 * what a device presents, and tells a device how to connect. A check costs an HMAC against the
 * stored digest, not a decryption.
 */
@Injectable()
export class SourceCredentials {
  /**
   * Digests of credentials stored without one, by source, purpose and sealed value. Every seal
   * has its own random nonce, so a renewed credential is a new entry and the old one is never
   * served for it.
   */
  private readonly opened = new Map<string, Buffer>();

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
    return this.box.matches(given, digest ?? this.openedDigest(sealed, context), context);
  }

  private openedDigest(sealed: string, context: string): Buffer {
    const key = `${context}:${sealed}`;
    let digest = this.opened.get(key);
    if (!digest) {
      digest = this.box.digest(this.box.open(sealed, context), context);
      if (this.opened.size >= MAX_KEPT_DIGESTS) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(key, digest);
    }
    return digest;
  }
}
