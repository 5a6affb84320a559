import { MqttClient } from 'mqtt';
import { setTimeout as sleep } from 'node:timers/promises';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Devices publishing QoS 1 at a steady total rate, each message of one source 10 s of device time
 * after the previous one (nothing throttled, nothing a duplicate). Records what was sent and what
 * the broker acknowledged (PUBACK), by source id and device timestamp.
 */
export class DeviceFleet {
  readonly sent = new Set<string>();
  readonly acknowledged = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly next = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly start = Date.now() - 6 * HOUR_MS;

  constructor(private readonly devices: Array<{ client: MqttClient; sourceId: string; topic: string }>) {}

  /** `perSecond` messages in all, in ticks of 20 ms, round robin over the devices. */
  publishAt(perSecond: number): void {
    const perTick = Math.max(1, Math.round(perSecond / 50));
    let turn = 0;
    this.timer = setInterval(() => {
      for (let i = 0; i < perTick; i += 1) this.publishOne(this.devices[turn++ % this.devices.length]);
    }, 20);
  }

  publish(count: number): void {
    for (let i = 0; i < count; i += 1) this.publishOne(this.devices[i % this.devices.length]);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Waits until every publish is acknowledged (devices resend after a reconnect), or the timeout. */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) await sleep(50);
  }

  async end(): Promise<void> {
    this.stop();
    await Promise.all(this.devices.map(({ client }) => client.endAsync(true)));
  }

  private publishOne(device: { client: MqttClient; sourceId: string; topic: string }): void {
    const seq = this.next.get(device.sourceId) ?? 0;
    this.next.set(device.sourceId, seq + 1);
    const ts = this.start + seq * 10_000;
    const key = `${device.sourceId}|${ts}`;
    this.sent.add(key);
    const published = device.client
      .publishAsync(device.topic, JSON.stringify({ soc: seq % 100, timestamp: new Date(ts).toISOString() }), {
        qos: 1,
      })
      .then(
        () => this.acknowledged.add(key),
        () => undefined,
      )
      .finally(() => this.pending.delete(published));
    this.pending.add(published);
  }
}
