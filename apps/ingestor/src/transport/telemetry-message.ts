/** The one event pattern every telemetry message is routed to, whatever its topic. */
export const TELEMETRY_MESSAGE = 'ingestor.telemetry-message';

/** A message as it came off the broker: the payload stays raw bytes, parsed by the consumer. */
export interface TelemetryMessage {
  topic: string;
  payload: Buffer;
  receivedAt: Date;
}
