import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CustomStrategy } from '@nestjs/microservices';
import { AppConfig } from '@solar/config';
import { configureHttpApp } from '@solar/platform';
import { EmbeddedBroker } from './broker/embedded-broker';
import { BrokerConnection } from './broker-connection';
import { IngestorModule } from './ingestor.module';
import { TelemetryMqttServer } from './transport/telemetry-mqtt.server';

/**
 * The ingestor: an MQTT microservice (the privileged broker account) plus a small HTTP server
 * for its health check, and with `EMBEDDED_BROKER=true` the broker itself (listening once this
 * resolves). Not yet connected: `startAllMicroservices` connects and resolves once the broker
 * answers.
 */
export async function createIngestorApp(config: AppConfig): Promise<INestApplication> {
  const transport = TelemetryMqttServer.fromConfig(config);
  const app = await NestFactory.create(IngestorModule.forRoot(config, transport), {
    bodyParser: false,
    bufferLogs: true,
  });
  configureHttpApp(app, config);
  if (config.mqtt.embeddedBroker) {
    const broker = app.get(EmbeddedBroker);
    transport.useInProcessBroker(() => broker.connectInProcess());
  }
  app.connectMicroservice<CustomStrategy>({ strategy: transport });
  const connection = app.get(BrokerConnection);
  transport.status.subscribe((status) => connection.update(String(status)));
  await app.init();
  return app;
}
