import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SecretBox, secretDigest } from '@solar/core';
import { mqttClientId, mqttTopic, webhookUrl } from './credentials';
import { ConnectionDetails } from './sun-source-view';
import { SunSourceEntity } from './sun-source.entity';

/**
 * Digests kept at most: a fleet's worth per process, so a steady fleet's messages are checked
 * without opening a secret; past it the oldest go.
 */
export const MAX_KEPT_DIGESTS = 100_000;

/** Seals and opens a source's device credentials and tells a device how to connect. */
@Injectable()
export class SourceCredentials {
  /**
   * Secret digests by source, purpose and sealed value. Every seal has its own random nonce, so
   * a rotated secret is a new entry and the old one is never served for it.
   */
  private readonly digests = new Map<string, Buffer>();

  constructor(
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  sealMqttApiKey(sourceId: string, key: string): string {
    return this.box.seal(key, `${sourceId}:mqttApiKey`);
  }

  sealWebhookSecret(sourceId: string, secret: string): string {
    return this.box.seal(secret, `${sourceId}:webhookSecret`);
  }

  mqttApiKeyOf(source: Pick<SunSourceEntity, 'id' | 'mqttApiKeyEncrypted'>): string | null {
    return source.mqttApiKeyEncrypted
      ? this.box.open(source.mqttApiKeyEncrypted, `${source.id}:mqttApiKey`)
      : null;
  }

  webhookSecretOf(source: Pick<SunSourceEntity, 'id' | 'webhookSecretEncrypted'>): string | null {
    return source.webhookSecretEncrypted
      ? this.box.open(source.webhookSecretEncrypted, `${source.id}:webhookSecret`)
      : null;
  }

  /**
   * What a device's key is checked against (`matchesSecretDigest`): the digest of the opened
   * key, kept, so that checking a device costs a hash rather than a decryption.
   */
  mqttApiKeyDigestOf(source: Pick<SunSourceEntity, 'id' | 'mqttApiKeyEncrypted'>): Buffer | null {
    return source.mqttApiKeyEncrypted
      ? this.digestOf(source.mqttApiKeyEncrypted, `${source.id}:mqttApiKey`)
      : null;
  }

  /** As `mqttApiKeyDigestOf`, for a webhook message's `key`. */
  webhookSecretDigestOf(source: Pick<SunSourceEntity, 'id' | 'webhookSecretEncrypted'>): Buffer | null {
    return source.webhookSecretEncrypted
      ? this.digestOf(source.webhookSecretEncrypted, `${source.id}:webhookSecret`)
      : null;
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

  private digestOf(sealed: string, context: string): Buffer {
    const key = `${context}:${sealed}`;
    let digest = this.digests.get(key);
    if (!digest) {
      digest = secretDigest(this.box.open(sealed, context));
      if (this.digests.size >= MAX_KEPT_DIGESTS) this.digests.delete(this.digests.keys().next().value!);
      this.digests.set(key, digest);
    }
    return digest;
  }
}
