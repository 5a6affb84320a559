import { AppConfig } from '@solar/config';

/**
 * The ingestor's privileged broker account: MQTT_USERNAME / MQTT_PASSWORD, or, when unset
 * (development with the embedded broker), `solar-ingestor` with the internal API key.
 */
export function ingestorCredentials(config: AppConfig): { username: string; password: string } {
  return {
    username: config.mqtt.username ?? 'solar-ingestor',
    password: config.mqtt.password ?? config.internalApiKey,
  };
}
