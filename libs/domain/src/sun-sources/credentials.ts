import { randomBytes } from 'node:crypto';

/** DECISIONS.md "MQTT": `ak_` + 64 lower-case hex characters (32 random bytes). */
export function generateMqttApiKey(): string {
  return `ak_${randomBytes(32).toString('hex')}`;
}

/** DECISIONS.md "MQTT": `wh_` + base64 of 32 random bytes (44 characters). */
export function generateWebhookSecret(): string {
  return `wh_${randomBytes(32).toString('base64')}`;
}

/** Topic form B, the one issued (SPEC.md §1): `{prefix}/sources/{sourceId}/data`. */
export function mqttTopic(prefix: string, sourceId: string): string {
  return `${prefix}/sources/${sourceId}/data`;
}

export function mqttClientId(sourceId: string): string {
  return `src-${sourceId}`;
}

export function webhookUrl(publicBaseUrl: string, sourceId: string): string {
  return `${publicBaseUrl}/api/webhook/sunsource/${sourceId}`;
}
