import { randomBytes } from 'node:crypto';

/** MQTT API key: `ak_` + 64 lower-case hex characters (32 random bytes). */
export function generateMqttApiKey(): string {
  return `ak_${randomBytes(32).toString('hex')}`;
}

/** Webhook secret: `wh_` + base64 of 32 random bytes (44 characters). */
export function generateWebhookSecret(): string {
  return `wh_${randomBytes(32).toString('base64')}`;
}

/** Topic form B, the one issued: `{prefix}/sources/{sourceId}/data`. */
export function mqttTopic(prefix: string, sourceId: string): string {
  return `${prefix}/sources/${sourceId}/data`;
}

export function mqttClientId(sourceId: string): string {
  return `src-${sourceId}`;
}

export function webhookUrl(publicBaseUrl: string, sourceId: string): string {
  return `${publicBaseUrl}/api/webhook/sunsource/${sourceId}`;
}
