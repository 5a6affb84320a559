import { BeforeApplicationShutdown, Injectable, Optional } from '@nestjs/common';
import { TelemetryWriter } from '@solar/telemetry';
import { EmbeddedBroker } from './broker/embedded-broker';
import { MqttTelemetryConsumer } from './telemetry/mqtt-telemetry-consumer.service';
import { TelemetryMqttServer } from './transport/telemetry-mqtt.server';

/**
 * SIGTERM loses nothing the ingestor has received: stop the flow at the broker, let every
 * message in hand reach storage, flush the last batch. All of it before any
 * `onApplicationShutdown`, so the database and Redis are still open.
 */
@Injectable()
export class IngestorShutdown implements BeforeApplicationShutdown {
  constructor(
    private readonly transport: TelemetryMqttServer,
    private readonly consumer: MqttTelemetryConsumer,
    private readonly writer: TelemetryWriter,
    @Optional() private readonly broker?: EmbeddedBroker,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    this.broker?.closeDeviceConnections();
    await this.transport.stopReceiving();
    await this.broker?.stop();
    await this.consumer.settle();
    await this.writer.drain();
  }
}
