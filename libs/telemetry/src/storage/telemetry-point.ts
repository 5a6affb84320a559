import type { ConnectionType } from '@solar/domain';
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
  /**
   * The device transport it came by: stored only while its source is active and of this type.
   * Absent for what the owner has generated, which only needs the source to exist.
   */
  via?: ConnectionType;
}
