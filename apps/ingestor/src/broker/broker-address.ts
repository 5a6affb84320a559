const DEFAULT_MQTT_PORT = 1883;

/**
 * Where the embedded broker listens: `MQTT_URL`'s host and port, so the ingestor's own client
 * (which connects to `MQTT_URL`) reaches it. Plain MQTT over TCP only.
 */
export function brokerListenAddress(mqttUrl: string): { host: string; port: number } {
  const url = new URL(mqttUrl);
  if (url.protocol !== 'mqtt:' && url.protocol !== 'tcp:') {
    throw new Error(
      `EMBEDDED_BROKER speaks plain MQTT over TCP: MQTT_URL must be mqtt:// or tcp://, not ${url.protocol}//`,
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host: host || '127.0.0.1', port: url.port ? Number(url.port) : DEFAULT_MQTT_PORT };
}
