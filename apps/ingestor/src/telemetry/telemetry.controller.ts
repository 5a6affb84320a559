import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { TELEMETRY_MESSAGE, TelemetryMessage } from '../transport/telemetry-message';
import { MqttTelemetryConsumer } from './mqtt-telemetry-consumer.service';

/** Every message on the telemetry topics (see `TelemetryMqttServer`). */
@Controller()
export class TelemetryController {
  constructor(private readonly consumer: MqttTelemetryConsumer) {}

  @EventPattern(TELEMETRY_MESSAGE)
  handle(@Payload() message: TelemetryMessage): Promise<void> {
    return this.consumer.consume(message);
  }
}
