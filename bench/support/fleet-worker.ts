import { connect, IClientOptions, MqttClient } from 'mqtt';
import { parentPort, workerData } from 'node:worker_threads';
import { DeviceScript, seededRandom } from './device-script';

/**
 * The MQTT side of the `fleet` scenario, in a worker thread. Two roles:
 * - `forwarders`: a few privileged connections (the ingestor's own account, which the broker
 *   treats as superuser) publishing QoS 1 on many sources' topics, each source's first message
 *   stamped with the current clock, as EMQX forwards a large fleet to a shared subscription;
 *   as fast as acknowledged, at most `inflight` unacknowledged messages per connection.
 * - `devices`: one connection per source (client id and username `src-{id}`, its key as
 *   password), each publishing one sample every `periodMs` stamped with the instant it was due,
 *   and reconnecting on its own after a drop (1–2 s apart, drawn per device, as real devices
 *   spread their retries), so a broker restart makes a reconnect storm.
 */
export interface FleetWorkerData {
  role: 'forwarders' | 'devices';
  url: string;
  topicPrefix: string;
  sources: Array<{ id: string; secret: string }>;
  seed: number;
  /** forwarders: how many connections, with which account, and their in-flight cap. */
  forwarders?: { count: number; username: string; password: string; inflight: number };
  /** devices: CONNECTs under way at once while the fleet first connects. */
  connectConcurrency: number;
  /** Give up on a connection (first connect) after this long. */
  connectTimeoutMs: number;
}

export type FleetWorkerCommand =
  | { type: 'forward'; ackTimeoutMs: number }
  | {
      type: 'publish';
      startAt: number;
      rounds: number;
      periodMs: number;
      ackTimeoutMs: number;
      /** Every n-th message is reported (source, ts, publish instant) to time its commit. */
      sampleEvery: number;
    }
  | { type: 'watch'; everyMs: number }
  | { type: 'unwatch' }
  | { type: 'close' };

export interface FleetPublishStats {
  sent: number;
  acked: number;
  failed: number;
  /** Acknowledged messages' (source, ts): each must be a row. */
  ackedMessages: Array<{ sourceId: string; ts: number }>;
  /** Not acknowledged when the wait ended. */
  unacked: Array<{ sourceId: string; ts: number }>;
  firstPublishAt: number;
  lastPublishAt: number;
  lastAckAt: number;
  /** Publish → PUBACK, ms, a sample of at most 20,000. */
  ackLatencies: number[];
  /** Schedule lag: how late the worker sent a message after its due instant, worst, ms. */
  maxLagMs: number;
}

export type FleetWorkerEvent =
  | { type: 'connecting'; connected: number; failed: number }
  | { type: 'connected'; ms: number; connected: number; failures: string[] }
  | { type: 'samples'; batch: Array<[string, number, number]> }
  | { type: 'published'; stats: FleetPublishStats }
  | { type: 'status'; at: number; connected: number; attempts: number; failures: Record<string, number> }
  | { type: 'closed' };

interface Connection {
  client: MqttClient | undefined;
  source?: { id: string; secret: string };
  script?: DeviceScript;
  topic?: string;
  inflight: number;
}

const data = workerData as FleetWorkerData;
const port = parentPort!;
const random = seededRandom(data.seed);
/** Reconnection attempts since start, all connections. */
let attempts = 0;
/** Connection errors since start by kind (the error's text without its address). */
const failures: Record<string, number> = {};
const countFailure = (error: Error) => {
  const kind = String(error.message)
    .replace(/\d+\.\d+\.\d+\.\d+:\d+/g, '')
    .trim();
  failures[kind] = (failures[kind] ?? 0) + 1;
};
let watchTimer: NodeJS.Timeout | undefined;

const topicOf = (sourceId: string) => `${data.topicPrefix}/sources/${sourceId}/data`;

const connections: Connection[] =
  data.role === 'forwarders'
    ? Array.from({ length: data.forwarders!.count }, () => ({ client: undefined, inflight: 0 }))
    : data.sources.map((source, index) => ({
        client: undefined,
        source,
        script: new DeviceScript(seededRandom(data.seed + index), {
          startTs: 0,
          resendShare: 0,
          probeShare: 0,
        }),
        topic: topicOf(source.id),
        inflight: 0,
      }));

function options(index: number): IClientOptions {
  const base: IClientOptions = {
    clean: true,
    protocolVersion: 4,
    keepalive: 120,
    connectTimeout: data.connectTimeoutMs,
  };
  if (data.role === 'forwarders') {
    const account = data.forwarders!;
    return {
      ...base,
      // Not the ingestor's own client id: a second login under it would drop the ingestor.
      clientId: `bench-forwarder-${process.pid}-${index}`,
      username: account.username,
      password: account.password,
      reconnectPeriod: 0,
    };
  }
  const source = connections[index].source!;
  return {
    ...base,
    clientId: `src-${source.id}`,
    username: `src-${source.id}`,
    password: source.secret,
    reconnectPeriod: 1000 + Math.floor(random() * 1000),
  };
}

/** First connection of every client; a client that fails keeps retrying until the deadline. */
async function connectAll(): Promise<void> {
  const startedAt = Date.now();
  const failures: string[] = [];
  let cursor = 0;
  const connectOne = (index: number) =>
    new Promise<void>((resolve) => {
      const client = connect(data.url, options(index));
      let lastError = 'no answer';
      const timer = setTimeout(() => {
        failures.push(`connect timeout (${lastError})`);
        client.end(true);
        resolve();
      }, data.connectTimeoutMs);
      client.on('error', (error) => {
        lastError = String(error);
        countFailure(error);
      });
      client.on('reconnect', () => (attempts += 1));
      client.once('connect', () => {
        clearTimeout(timer);
        connections[index].client = client;
        resolve();
      });
    });
  const next = async (): Promise<void> => {
    while (cursor < connections.length) {
      const index = cursor;
      cursor += 1;
      await connectOne(index);
    }
  };
  const progress = setInterval(() => {
    port.postMessage({
      type: 'connecting',
      connected: connections.filter((connection) => connection.client).length,
      failed: failures.length,
    } satisfies FleetWorkerEvent);
  }, 5000);
  const concurrency = data.role === 'forwarders' ? connections.length : data.connectConcurrency;
  await Promise.all(Array.from({ length: concurrency }, () => next()));
  clearInterval(progress);
  const shown = [...new Set(failures)].slice(0, 5);
  port.postMessage({
    type: 'connected',
    ms: Date.now() - startedAt,
    connected: connections.filter((connection) => connection.client).length,
    failures: failures.length > 0 ? [...shown, `${failures.length} in all`] : [],
  } satisfies FleetWorkerEvent);
}

function emptyStats(): FleetPublishStats {
  return {
    sent: 0,
    acked: 0,
    failed: 0,
    ackedMessages: [],
    unacked: [],
    firstPublishAt: 0,
    lastPublishAt: 0,
    lastAckAt: 0,
    ackLatencies: [],
    maxLagMs: 0,
  };
}

/**
 * Publishes one QoS 1 message and keeps its bookkeeping; `done` runs on its PUBACK (or failure).
 * Latencies are sampled one in `latencyEvery`.
 */
function publisher(
  stats: FleetPublishStats,
  pending: Map<number, { sourceId: string; ts: number }>,
  latencyEvery: number,
) {
  let sequence = 0;
  return (
    connection: Connection,
    topic: string,
    sourceId: string,
    ts: number,
    body: string,
    done?: () => void,
  ) => {
    const id = sequence++;
    const sentAt = Date.now();
    if (stats.firstPublishAt === 0) stats.firstPublishAt = sentAt;
    stats.lastPublishAt = sentAt;
    stats.sent += 1;
    connection.inflight += 1;
    pending.set(id, { sourceId, ts });
    connection.client!.publish(topic, body, { qos: 1 }, (error) => {
      connection.inflight -= 1;
      pending.delete(id);
      const now = Date.now();
      if (error) stats.failed += 1;
      else {
        stats.acked += 1;
        stats.lastAckAt = now;
        stats.ackedMessages.push({ sourceId, ts });
        if (id % latencyEvery === 0) stats.ackLatencies.push(now - sentAt);
      }
      done?.();
    });
    return sentAt;
  };
}

/** Waits (at most `timeoutMs`) until nothing is pending. */
async function drained(pending: Map<number, unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pending.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** forwarders: every source's first message, current clock, as fast as acknowledged. */
async function forward(command: Extract<FleetWorkerCommand, { type: 'forward' }>): Promise<void> {
  const stats = emptyStats();
  const pending = new Map<number, { sourceId: string; ts: number }>();
  const send = publisher(stats, pending, Math.max(1, Math.ceil(data.sources.length / 20_000)));
  const live = connections.filter((connection) => connection.client);
  const script = new DeviceScript(seededRandom(data.seed), { startTs: 0, resendShare: 0, probeShare: 0 });
  let cursor = 0;
  const cap = data.forwarders!.inflight;
  await new Promise<void>((resolve) => {
    if (live.length === 0) return resolve();
    let finished = 0;
    const pump = (connection: Connection) => {
      while (connection.inflight < cap && cursor < data.sources.length) {
        const source = data.sources[cursor];
        cursor += 1;
        const ts = Date.now();
        send(connection, topicOf(source.id), source.id, ts, script.at(ts), () => pump(connection));
      }
      if (cursor >= data.sources.length && connection.inflight === 0) {
        finished += 1;
        if (finished === live.length) resolve();
      }
    };
    // A connection that never gets its acknowledgements must not hold the run: bounded below.
    setTimeout(resolve, command.ackTimeoutMs + data.sources.length);
    live.forEach(pump);
  });
  stats.unacked = [...pending.values()];
  port.postMessage({ type: 'published', stats } satisfies FleetWorkerEvent);
}

/** devices: each publishes every `periodMs`, stamped with the instant it was due. */
async function publishRounds(command: Extract<FleetWorkerCommand, { type: 'publish' }>): Promise<void> {
  const stats = emptyStats();
  const pending = new Map<number, { sourceId: string; ts: number }>();
  const total = connections.length * command.rounds;
  const send = publisher(stats, pending, Math.max(1, Math.ceil(total / 20_000)));
  let batch: Array<[string, number, number]> = [];
  const flush = setInterval(() => {
    if (batch.length === 0) return;
    port.postMessage({ type: 'samples', batch } satisfies FleetWorkerEvent);
    batch = [];
  }, 100);
  // Message i (round k = i / n, device j = i % n) is due at startAt + k·period + ⌊j·period / n⌋.
  const n = connections.length;
  const dueAt = (i: number) =>
    command.startAt + Math.floor(i / n) * command.periodMs + Math.floor(((i % n) * command.periodMs) / n);
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = Date.now();
      while (next < total && dueAt(next) <= now) {
        const connection = connections[next % n];
        const ts = dueAt(next);
        next += 1;
        if (!connection.client) continue; // never connected: counted as a connect failure
        stats.maxLagMs = Math.max(stats.maxLagMs, now - ts);
        const sentAt = send(
          connection,
          connection.topic!,
          connection.source!.id,
          ts,
          connection.script!.at(ts),
        );
        if (stats.sent % command.sampleEvery === 0) batch.push([connection.source!.id, ts, sentAt]);
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(1, Math.min(20, dueAt(next) - now)));
    };
    tick();
  });
  await drained(pending, command.ackTimeoutMs);
  clearInterval(flush);
  if (batch.length > 0) port.postMessage({ type: 'samples', batch } satisfies FleetWorkerEvent);
  stats.unacked = [...pending.values()];
  port.postMessage({ type: 'published', stats } satisfies FleetWorkerEvent);
}

function status(): void {
  port.postMessage({
    type: 'status',
    at: Date.now(),
    connected: connections.filter((connection) => connection.client?.connected).length,
    attempts,
    failures: { ...failures },
  } satisfies FleetWorkerEvent);
}

async function closeAll(): Promise<void> {
  clearInterval(watchTimer);
  await Promise.all(
    connections.map(async ({ client }) => {
      if (!client) return;
      client.options.reconnectPeriod = 0;
      await Promise.race([
        client.endAsync().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 5000)),
      ]);
      client.end(true);
    }),
  );
  port.postMessage({ type: 'closed' } satisfies FleetWorkerEvent);
}

port.on('message', (command: FleetWorkerCommand) => {
  if (command.type === 'forward') void forward(command);
  else if (command.type === 'publish') void publishRounds(command);
  else if (command.type === 'watch') {
    clearInterval(watchTimer);
    status();
    watchTimer = setInterval(status, command.everyMs);
  } else if (command.type === 'unwatch') clearInterval(watchTimer);
  else void closeAll();
});
void connectAll();
