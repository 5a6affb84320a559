import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CustomStrategy } from '@nestjs/microservices';
import { AppConfig } from '@solar/config';
import { configureHttpApp } from '@solar/platform';
import { EmbeddedBroker } from './broker/embedded-broker';
import { BrokerConnection } from './broker-connection';
import { IngestorModule } from './ingestor.module';
import { MqttTelemetryConsumer } from './telemetry/mqtt-telemetry-consumer.service';
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
  // Its HTTP routes are the health check and the metrics, which take no input.
  configureHttpApp(app, config, { servesMetrics: true, validatesInput: false });
  const consumer = app.get(MqttTelemetryConsumer);
  transport.readOnlyWhen(() => consumer.whenBelowCap());
  if (config.mqtt.embeddedBroker) {
    const broker = app.get(EmbeddedBroker);
    broker.handTelemetryTo((message) => consumer.consume(message));
    transport.useInProcessBroker(() => broker.connectInProcess());
  }
  app.connectMicroservice<CustomStrategy>({ strategy: transport });
  const connection = app.get(BrokerConnection);
  transport.status.subscribe((status) => connection.update(String(status)));
  connection.reportIntake(() => consumer.intake());
  await app.init();
  return app;
}
