import { connectAsync, MqttClient } from 'mqtt';
import { parentPort, workerData } from 'node:worker_threads';
import { DeviceScript, MessageKind, seededRandom } from './device-script';

/**
 * A share of the simulated MQTT fleet, in a worker thread: one connection per device (client id
 * and username `src-{id}`, the source key as password, as a real device), then QoS 1 publishes
 * on a token-bucket schedule, each device with at most `inflightCap` unacknowledged messages.
 */
export interface MqttWorkerData {
  url: string;
  topicPrefix: string;
  devices: Array<{ id: string; secret: string }>;
  startTs: number;
  seed: number;
  resendShare: number;
  probeShare: number;
  connectConcurrency: number;
  inflightCap: number;
}

export type MqttWorkerCommand =
  | { type: 'go'; ratePerSecond: number; durationMs: number; startAt: number; ackTimeoutMs: number }
  | { type: 'close' };

export interface PublishStats {
  sent: Record<MessageKind, number>;
  acked: Record<MessageKind, number>;
  failed: number;
  /** Not acknowledged when the wait ended: the (source, ts) of each, to look up in the database. */
  unacked: Array<{ sourceId: string; ts: number; kind: MessageKind }>;
  disconnects: number;
  firstPublishAt: number;
  lastPublishAt: number;
  /** Messages the schedule wanted out but could not send (every device at its in-flight cap). */
  maxBacklog: number;
  /** Publish → PUBACK, ms, a sample of at most 20,000. */
  ackLatencies: number[];
}

export type MqttWorkerEvent =
  | { type: 'connecting'; connected: number; failed: number }
  | { type: 'connected'; ms: number; connected: number; failures: string[] }
  | { type: 'published'; stats: PublishStats }
  | { type: 'closed' };

interface Device {
  id: string;
  secret: string;
  topic: string;
  client: MqttClient | undefined;
  script: DeviceScript;
  inflight: number;
}

const data = workerData as MqttWorkerData;
const port = parentPort!;
const zero = (): Record<MessageKind, number> => ({ regular: 0, resend: 0, probe: 0 });
let disconnects = 0;
let publishing = false;

const devices: Device[] = data.devices.map((device, index) => ({
  id: device.id,
  secret: device.secret,
  topic: `${data.topicPrefix}/sources/${device.id}/data`,
  client: undefined,
  script: new DeviceScript(seededRandom(data.seed + index), {
    startTs: data.startTs,
    resendShare: data.resendShare,
    probeShare: data.probeShare,
  }),
  inflight: 0,
}));

async function connectAll(): Promise<void> {
  const startedAt = Date.now();
  const failures: string[] = [];
  let cursor = 0;
  const connectNext = async (): Promise<void> => {
    while (cursor < devices.length) {
      const device = devices[cursor];
      cursor += 1;
      try {
        const client = await connectAsync(
          data.url,
          {
            clientId: `src-${device.id}`,
            username: `src-${device.id}`,
            password: device.secret,
            clean: true,
            protocolVersion: 4,
            keepalive: 120,
            reconnectPeriod: 0,
            connectTimeout: 15_000,
          },
          false,
        );
        client.on('close', () => {
          if (publishing) disconnects += 1;
        });
        client.on('error', () => undefined);
        device.client = client;
      } catch (error) {
        if (failures.length < 5) failures.push(String(error));
        else failures.push('');
      }
    }
  };
  const progress = setInterval(() => {
    port.postMessage({
      type: 'connecting',
      connected: devices.filter((device) => device.client).length,
      failed: failures.length,
    } satisfies MqttWorkerEvent);
  }, 5000);
  await Promise.all(Array.from({ length: data.connectConcurrency }, () => connectNext()));
  clearInterval(progress);
  const connected = devices.filter((device) => device.client).length;
  port.postMessage({
    type: 'connected',
    ms: Date.now() - startedAt,
    connected,
    failures: failures.filter(Boolean).concat(failures.length > 5 ? [`… ${failures.length} in all`] : []),
  } satisfies MqttWorkerEvent);
}

async function publish(command: Extract<MqttWorkerCommand, { type: 'go' }>): Promise<void> {
  const stats: PublishStats = {
    sent: zero(),
    acked: zero(),
    failed: 0,
    unacked: [],
    disconnects: 0,
    firstPublishAt: 0,
    lastPublishAt: 0,
    maxBacklog: 0,
    ackLatencies: [],
  };
  const pending = new Map<number, { sourceId: string; ts: number; kind: MessageKind }>();
  const live = devices.filter((device) => device.client);
  let sequence = 0;
  let sentTotal = 0;
  let cursor = 0;
  let resolveDrained: (() => void) | undefined;
  const latencyEvery = Math.max(1, Math.ceil((command.ratePerSecond * command.durationMs) / 1000 / 20_000));

  const sendOne = (device: Device) => {
    const message = device.script.next();
    const id = sequence++;
    const sentAt = Date.now();
    if (stats.firstPublishAt === 0) stats.firstPublishAt = sentAt;
    stats.lastPublishAt = sentAt;
    stats.sent[message.kind] += 1;
    sentTotal += 1;
    device.inflight += 1;
    pending.set(id, { sourceId: device.id, ts: message.ts, kind: message.kind });
    device.client!.publish(device.topic, message.body, { qos: 1 }, (error) => {
      device.inflight -= 1;
      pending.delete(id);
      const now = Date.now();
      if (error) stats.failed += 1;
      else {
        stats.acked[message.kind] += 1;
        if (id % latencyEvery === 0) stats.ackLatencies.push(now - sentAt);
      }
      if (!publishing && pending.size === 0) resolveDrained?.();
    });
  };

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, command.startAt - Date.now())));
  publishing = true;
  const startedAt = Date.now();
  const endAt = startedAt + command.durationMs;
  const maxPerTick = Math.max(50, Math.ceil(command.ratePerSecond / 50));
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = Date.now();
      const elapsed = Math.min(now, endAt) - startedAt;
      let due = Math.floor((command.ratePerSecond * elapsed) / 1000) - sentTotal;
      stats.maxBacklog = Math.max(stats.maxBacklog, due);
      due = Math.min(due, maxPerTick);
      // Round-robin over the devices; a device at its in-flight cap keeps its turn for later.
      let skipped = 0;
      while (due > 0 && skipped < live.length) {
        const device = live[cursor];
        cursor = (cursor + 1) % live.length;
        if (device.inflight >= data.inflightCap || !device.client!.connected) {
          skipped += 1;
          continue;
        }
        skipped = 0;
        sendOne(device);
        due -= 1;
      }
      if (now >= endAt) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  publishing = false;
  if (pending.size > 0) {
    await new Promise<void>((resolve) => {
      resolveDrained = resolve;
      setTimeout(resolve, command.ackTimeoutMs);
    });
  }
  stats.unacked = [...pending.values()];
  stats.disconnects = disconnects;
  port.postMessage({ type: 'published', stats } satisfies MqttWorkerEvent);
}

async function closeAll(): Promise<void> {
  const closing = devices.map(async (device) => {
    const client = device.client;
    if (!client) return;
    await Promise.race([
      client.endAsync().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 5000)),
    ]);
    client.end(true);
  });
  await Promise.all(closing);
  port.postMessage({ type: 'closed' } satisfies MqttWorkerEvent);
}

port.on('message', (command: MqttWorkerCommand) => {
  if (command.type === 'go') void publish(command);
  else void closeAll();
});
void connectAll();
