import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SecretBox } from '@solar/core';
import { mqttClientId, mqttTopic, webhookUrl } from './credentials';
import { ConnectionDetails } from './sun-source-view';
import { SunSourceEntity } from './sun-source.entity';

/** Seals and opens a source's device credentials and tells a device how to connect. */
@Injectable()
export class SourceCredentials {
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
}
