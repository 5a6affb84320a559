import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MqttOptions, Transport } from '@nestjs/microservices';
import { AppConfig } from '@solar/config';
import { configureHttpApp } from '@solar/platform';
import { BrokerConnection } from './broker-connection';
import { IngestorModule } from './ingestor.module';

/** Fixed, so the broker sees one privileged worker identity (SPEC.md §1). */
export const INGESTOR_CLIENT_ID = 'solar-ingestor';

/**
 * The ingestor: an MQTT microservice (the privileged broker account) plus a small HTTP server
 * for its health check. Not yet connected: `start` connects and resolves once the broker answers.
 */
export async function createIngestorApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create(IngestorModule.forRoot(config), { bodyParser: false, bufferLogs: true });
  configureHttpApp(app, config);
  const microservice = app.connectMicroservice<MqttOptions>({
    transport: Transport.MQTT,
    options: {
      url: config.mqtt.url,
      username: config.mqtt.username,
      password: config.mqtt.password,
      clientId: INGESTOR_CLIENT_ID,
      clean: true,
    },
  });
  const connection = app.get(BrokerConnection);
  microservice.status.subscribe((status) => connection.update(String(status)));
  await app.init();
  return app;
}
