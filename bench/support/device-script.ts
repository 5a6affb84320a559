/** One device timestamp step: the throttle keeps one message per source per 10 s of device time. */
export const DEVICE_STEP_MS = 10_000;

export type MessageKind = 'regular' | 'resend' | 'probe';

export interface ScriptedMessage {
  kind: MessageKind;
  ts: number;
  /** The JSON sent; a resend repeats the previous message byte for byte. */
  body: string;
}

// The same seed sends the same fleet traffic. By path: the worker thread needs none of the testing barrel.
export { seededRandom } from '../../libs/testing/src/seeded-random';

export interface ScriptOptions {
  /** Device time of the first message (epoch ms). */
  startTs: number;
  /** Share of stored messages the device sends twice (→ duplicate). */
  resendShare: number;
  /** Share of stored messages followed by one 1 s later (→ throttled). */
  probeShare: number;
  /** Webhook: the secret travels in the body as `key`. */
  key?: string;
}

/**
 * What one simulated device sends, in order: a device flushing its buffer, one sample per 10 s
 * of device time, now and then a resend of the last message (a lost PUBACK/response) or an extra
 * sample 1 s after the last (a chatty device). The expected verdicts are known in advance:
 * regular → stored, resend → duplicate, probe → throttled.
 */
export class DeviceScript {
  private nextTs: number;
  private pending: ScriptedMessage | undefined;
  private energy: number;
  /** `at`'s sample around its timestamp: [before, after]. */
  private current: [string, string] | undefined;

  constructor(
    private readonly random: () => number,
    private readonly options: ScriptOptions,
  ) {
    this.nextTs = options.startTs;
    this.energy = Math.round(random() * 5000) / 100;
  }

  next(): ScriptedMessage {
    if (this.pending) {
      const extra = this.pending;
      this.pending = undefined;
      return extra;
    }
    const ts = this.nextTs;
    this.nextTs += DEVICE_STEP_MS;
    const message: ScriptedMessage = { kind: 'regular', ts, body: this.payload(ts) };
    const draw = this.random();
    if (draw < this.options.resendShare) {
      this.pending = { kind: 'resend', ts, body: message.body };
    } else if (draw < this.options.resendShare + this.options.probeShare) {
      this.pending = { kind: 'probe', ts: ts + 1000, body: this.payload(ts + 1000) };
      // The next regular sample keeps 10 s from the probe too, whatever order they are processed in.
      this.nextTs += DEVICE_STEP_MS;
    }
    return message;
  }

  /**
   * A sample taken at device time `ts` (the fleet's devices send their current clock). The
   * values are drawn once per device: only the timestamp changes, which is all the server's
   * checks look at, and building a fresh sample cost the load generator ~19 µs per message.
   */
  at(ts: number): string {
    if (!this.current) {
      const sample = this.payload(0);
      const stamp = new Date(0).toISOString();
      const at = sample.indexOf(stamp);
      this.current = [sample.slice(0, at), sample.slice(at + stamp.length)];
    }
    return this.current[0] + new Date(ts).toISOString() + this.current[1];
  }

  /** A typical hybrid-inverter sample (canonical field names), about 400 bytes. */
  private payload(ts: number): string {
    const r = this.random;
    const solar = Math.round(r() * 4000);
    const load = Math.round(300 + r() * 2500);
    this.energy += solar / 360_000;
    const telemetry = {
      ...(this.options.key ? { key: this.options.key } : {}),
      timestamp: new Date(ts).toISOString(),
      stateOfCharge: Math.round(20 + r() * 80),
      batteryVoltage: Math.round((48 + r() * 8) * 100) / 100,
      batteryCurrent: Math.round((r() * 60 - 30) * 100) / 100,
      batteryTemperature: Math.round((18 + r() * 15) * 10) / 10,
      solarVoltage: Math.round((250 + r() * 150) * 10) / 10,
      solarCurrent: Math.round((solar / 320) * 100) / 100,
      solarPower: solar,
      outputVoltage: Math.round((228 + r() * 6) * 10) / 10,
      outputFrequency: 50,
      loadPower: load,
      gridPower: Math.round(load - solar),
      dailyEnergyProduced: Math.round(this.energy * 1000) / 1000,
      operatingMode: 'Line',
      deviceStatus: 'OK',
    };
    return JSON.stringify(telemetry);
  }
}
