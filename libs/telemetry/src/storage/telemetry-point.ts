import { TelemetryValues } from '../telemetry-fields';

/** One normalized message, ready to store. */
export interface TelemetryPoint {
  sunSourceId: string;
  /** The device's timestamp, or the arrival time when it sent none. */
  ts: Date;
  receivedAt: Date;
  values: TelemetryValues;
  /** The payload as received, minus the webhook `key`. */
  raw: Record<string, unknown>;
}
