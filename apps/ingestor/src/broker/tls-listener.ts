import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { createServer, Server } from 'node:tls';
import { MqttTls } from '@solar/config';

/**
 * The embedded broker's MQTT-over-TLS listener for devices (`MQTT_TLS_CERT`/`MQTT_TLS_KEY`, on
 * `MQTT_TLS_PORT`, 8883 by default): the same broker behind it, so the same authentication and
 * authorization as plain MQTT; TLS only protects the key and the data in transit. The files
 * are read once at boot: a renewed certificate takes a restart.
 */
export async function listenForDevicesOverTls(
  handle: (socket: Socket) => void,
  tls: MqttTls,
  host: string,
  logger: Logger,
): Promise<Server> {
  const server = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(tls.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'embedded MQTT TLS listener error'));
  // A failed handshake (plain MQTT on this port, an untrusted certificate): that client only.
  server.on('tlsClientError', (error) => logger.debug({ err: error }, 'MQTT TLS handshake failed'));
  const address = server.address();
  logger.log({
    msg: 'embedded MQTT broker listening with TLS',
    host,
    port: typeof address === 'object' && address ? address.port : tls.port,
  });
  return server;
}
