import { connectAsync, IClientOptions, MqttClient } from 'mqtt';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { ApiWithUser, createMqttSource, MqttSource, waitFor } from '@solar/testing';

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

  /**
   * One device per source, connected to `url` with `credentials` (reconnecting 200 ms after a
   * drop), publishing on `topicOf(source)`.
   */
  static async connect(
    sources: MqttSource[],
    url: string,
    topicOf: (source: MqttSource) => string,
    credentials: (source: MqttSource) => IClientOptions,
  ): Promise<DeviceFleet> {
    const devices = await Promise.all(
      sources.map(async (source) => ({
        client: await connectAsync(url, {
          reconnectPeriod: 200,
          connectTimeout: 5000,
          ...credentials(source),
        }),
        sourceId: source.id,
        topic: topicOf(source),
      })),
    );
    return new DeviceFleet(devices);
  }

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

/** `n` MQTT sources of the api's user, made one after the other: `${label} 0`, `${label} 1`, ... */
export async function createMqttSources(api: ApiWithUser, n: number, label: string): Promise<MqttSource[]> {
  const sources: MqttSource[] = [];
  for (let i = 0; i < n; i += 1) sources.push(await createMqttSource(api.http, api.cookie, `${label} ${i}`));
  return sources;
}

/** The rows of `sources`: every one, and one key per (source, timestamp) as `DeviceFleet` keys its messages. */
export async function storedOf(
  db: Client,
  sources: MqttSource[],
): Promise<{ rows: number; keys: Set<string> }> {
  const result = await db.query<{ sun_source_id: string; ts: Date }>(
    'SELECT sun_source_id, ts FROM telemetry WHERE sun_source_id = ANY($1)',
    [sources.map((source) => source.id)],
  );
  return {
    rows: result.rows.length,
    keys: new Set(result.rows.map((row) => `${row.sun_source_id}|${row.ts.getTime()}`)),
  };
}

/** The keys of `wanted` that `stored` lacks. */
export const missing = (wanted: Set<string>, stored: Set<string>) =>
  [...wanted].filter((key) => !stored.has(key));

/**
 * Waits until every key of `wanted` is stored (messages a broker redelivers are still being
 * written), at most `timeoutMs`: the test then judges what was stored either way.
 */
export async function allStored(
  db: Client,
  sources: MqttSource[],
  wanted: Set<string>,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => missing(wanted, (await storedOf(db, sources)).keys).length === 0,
    'every accepted message stored',
    timeoutMs,
  ).catch(() => undefined);
}
