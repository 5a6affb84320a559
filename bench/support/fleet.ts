import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { Child, freePort, MetricsScrape, startNode, stopChild } from '@solar/testing';
import type {
  FleetPublishStats,
  FleetWorkerCommand,
  FleetWorkerData,
  FleetWorkerEvent,
} from './fleet-worker';
import {
  EventLoopIntervals,
  eventLoopIntervals,
  IntakeStep,
  intakeSteps,
  scrapeApiMetrics,
} from './intake-steps';
import { PhaseUsage, percentile, round, UsageMeter } from './processes';
import { log } from './run-resources';
import { SeededSource, storedAmong } from './seed';
import { startTsWorker } from './ts-worker';
import { runWebhookLoad, WebhookRunResult } from './webhook-load';

/**
 * The `fleet` scenario: a real fleet rather than replayed buffers. Tens of thousands of distinct
 * sources, every message stamped with the device's current clock; cold (fresh api, each message
 * its source's first), then steady (each source every 10 s); MQTT through privileged forwarders
 * (as EMQX feeds a shared subscription) and through one connection per device; the ingestor's
 * ready time and a reconnect storm. Every figure has the bare server's beside it: a bare Node
 * HTTP server for the webhook loads, a bare aedes broker (no authentication, nothing stored) for
 * the MQTT ones.
 */

export const FLEET_TARGETS = {
  storedPerSecond: 5000,
  coldP99Ms: 50,
  steadyP99Ms: 50,
  commitP99Ms: 1000,
  readyMs: 3000,
  reconnectMs: 10_000,
  stormP99Ms: 100,
};
/** Each fleet device sends one message per this, as the throttle allows. */
export const FLEET_PERIOD_MS = 10_000;
/** Row polling for the publish → committed row latency. */
const COMMIT_POLL_MS = 50;
/** Messages whose commit is timed per second of publishing, at most. */
const COMMIT_SAMPLES_PER_SECOND = 200;

export interface FleetOptions {
  sources: number;
  coldRate: number;
  coldSeconds: number;
  steadySeconds: number;
  maxConnections: number;
  rateConnections: number;
  mqttSources: number;
  forwarders: number;
  forwarderInflight: number;
  devices: number;
  deviceRounds: number;
  stormRate: number;
  stormSeconds: number;
  /** The webhook load generator of every run, bare server included. */
  generator: 'sockets' | 'autocannon';
  /** How the storm stops the ingestor: SIGTERM (a deploy) or SIGKILL (a crash, an OOM kill). */
  stormSignal: 'SIGTERM' | 'SIGKILL';
}

/** What the run's main lends the scenario: its database, processes and the shared webhook phase. */
export interface FleetContext {
  client: Client;
  meter: UsageMeter;
  options: FleetOptions;
  root: string;
  apiPort: number;
  /** The api's metrics (none with several api processes: each would serve only its own). */
  apiMetricsUrl: string | undefined;
  mqttUrl: string;
  topicPrefix: string;
  ingestorAccount: { username: string; password: string };
  workers: Worker[];
  children: Child[];
  seed: (type: 'MQTT' | 'Webhook', count: number, label: string) => Promise<SeededSource[]>;
  /** Stops the api and starts a new one (cold caches), waiting for its health check. */
  restartApi: () => Promise<void>;
  /** Starts an ingestor (embedded broker); resolves once it logged `ready`. */
  startIngestor: () => Promise<Child>;
  stopApp: (child: Child, graceMs: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  webhookPhase: (
    name: string,
    port: number,
    sources: SeededSource[],
    connections: number,
    overallRate: number | undefined,
    overrides: {
      durationSeconds: number;
      /** Sent first at the same rate, its latencies reported apart. */
      warmupSeconds?: number;
      clock: 'current';
      amount?: number;
      keepSamples?: boolean;
      alongside?: () => Promise<void>;
    },
  ) => Promise<FleetWebhookPhase>;
  quiet: (phase: string) => Promise<void>;
  totalRows: () => Promise<number>;
}

/** The parts of the shared webhook phase the fleet reads. */
export interface FleetWebhookPhase {
  name: string;
  connections: number;
  overallRate: number | undefined;
  sources: number;
  result: Omit<WebhookRunResult, 'unanswered' | 'unclaimed' | 'samples'> & { unanswered: number };
  /** `keepSamples`: [due instant, latency] of every answer; not written to the report. */
  samples?: Array<[number, number]>;
  unansweredStored: number;
  stored: number;
  storedPerSecond: number;
  usage: PhaseUsage;
  accountingExact: boolean;
  accountingNote: string;
  /** Open-loop runs: the first second apart from the rest (a fresh api's connections and JIT). */
  firstSecond?: { p50: number; p99: number; count: number };
  afterFirstSecond?: { p50: number; p99: number; count: number };
}

export interface BareFigure {
  requestsPerSecond: number;
  latency: { p50: number; p99: number };
  /** CPU µs per answered request of the bare server and of the bench (the load generator). */
  cpuMicrosPerRequest: Record<string, number>;
}

export interface Tally {
  [outcome: string]: number;
}

export interface MqttRun {
  name: string;
  connections: number;
  connectSeconds: number;
  connected: number;
  connectFailures: string[];
  sent: number;
  acked: number;
  failed: number;
  unacked: number;
  unackedStored: number;
  ackedNotStored: number;
  ackLatencyMs: { p50: number; p99: number; max: number };
  maxLagMs: number;
  publishSeconds: number;
  /** Rows of this run (table delta); 0 against the bare broker. */
  stored: number;
  /** First publish → last new row; acknowledgements per second against the bare broker. */
  storedPerSecond: number;
  /** The best whole second of rows (or acknowledgements). */
  peakPerSecond: number;
  commitLatencyMs?: { p50: number; p99: number; max: number; sampled: number; notSeen: number };
  tally?: Tally;
  usage: PhaseUsage;
  accountingExact: boolean;
  accountingNote: string;
}

export interface StormRun {
  devices: number;
  signal: 'SIGTERM' | 'SIGKILL';
  /** Stop signal sent → process gone. */
  stopSeconds: number;
  /** Start → `ready` logged (ingestor) / listening (bare broker). */
  readySeconds: number;
  /** Start → its MQTT port accepts connections. */
  brokerSeconds: number;
  /** Broker accepting again → every device connected again; undefined if not all came back. */
  reconnectSeconds: number | undefined;
  reconnected: number;
  attempts: number;
  /** Connection errors the devices saw during the storm, by kind. */
  failures: Record<string, number>;
  webhookBefore?: { p50: number; p99: number; count: number };
  webhookDuring?: { p50: number; p99: number; count: number };
  tallyBefore?: Tally;
}

export interface FleetReport {
  sources: number;
  webhook: {
    coldMaximum: FleetWebhookPhase;
    coldRate: FleetWebhookPhase;
    steady: FleetWebhookPhase;
    storm: FleetWebhookPhase;
    bare: { coldMaximum: BareFigure; coldRate: BareFigure; steady: BareFigure };
  };
  /** The steady run's wait per step of the intake, after its first period, from the api's metrics. */
  steadyIntakeSteps: IntakeStep[];
  /** The api's event loop over the same part (undefined without its metrics). */
  steadyEventLoop: EventLoopIntervals | undefined;
  ingestorReadySeconds: number[];
  forwarders: MqttRun;
  devices: MqttRun;
  storm: StormRun;
  bareMqtt: { forwarders: MqttRun; devices: MqttRun; storm: StormRun };
  lastTally?: Tally;
  stored: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const TALLY_KEYS = ['stored', 'throttled', 'duplicate', 'overBudget', 'rejected', 'ignored', 'lost'];

/** The ingestor's outcome tally, summed over its `mqtt telemetry summary` lines (the last at shutdown). */
export function tallyOf(child: Child): Tally | undefined {
  const summaries = child.kept.filter((line) => line.msg === 'mqtt telemetry summary');
  if (summaries.length === 0) return undefined;
  const sum: Tally = Object.fromEntries(TALLY_KEYS.map((key) => [key, 0]));
  for (const line of summaries) {
    for (const key of TALLY_KEYS) sum[key] += typeof line[key] === 'number' ? line[key] : 0;
  }
  return sum;
}

const tallied = (tally: Tally | undefined) => (tally ? Object.values(tally).reduce((a, b) => a + b, 0) : 0);

/** Resolves once `port` on loopback accepts a TCP connection; bounded by `timeoutMs`. */
async function accepting(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await sleep(20);
  }
  return false;
}

/** p50/p99 of the samples whose due instant is in [from, to). */
/** Moves an open-loop phase's samples into its first-second and after-first-second figures. */
function splitFirstSecond(phase: FleetWebhookPhase): void {
  const samples = phase.samples ?? [];
  delete phase.samples;
  const start = samples.reduce((first, [due]) => Math.min(first, due), Number.POSITIVE_INFINITY);
  phase.firstSecond = windowLatency(samples, start, start + 1000);
  phase.afterFirstSecond = windowLatency(samples, start + 1000, Number.POSITIVE_INFINITY);
}

function windowLatency(samples: Array<[number, number]>, from: number, to: number) {
  const values = samples
    .filter(([due]) => due >= from && due < to)
    .map(([, latency]) => latency)
    .sort((a, b) => a - b);
  return {
    p50: round(percentile(values, 50, 0), 1),
    p99: round(percentile(values, 99, 0), 1),
    count: values.length,
  };
}

const bareFigure = (result: WebhookRunResult, usage: PhaseUsage): BareFigure => ({
  requestsPerSecond: round(result.requestsPerSecond),
  latency: { p50: result.latency.p50, p99: result.latency.p99 },
  cpuMicrosPerRequest: cpuMicrosPer(usage, answeredOf(result), ['bare server', 'bench']),
});

const answeredOf = (result: { outcomes: Record<string, number> }) =>
  Object.values(result.outcomes).reduce((sum, count) => sum + count, 0);

/** CPU µs each of `names` spent per message over a phase of `count` messages. */
function cpuMicrosPer(usage: PhaseUsage, count: number, names: string[]): Record<string, number> {
  const micros: Record<string, number> = {};
  for (const name of names) {
    const process = usage.processes[name];
    if (process && count > 0)
      micros[name] = round(((process.cpuPercent / 100) * usage.seconds * 1e6) / count);
  }
  return micros;
}

// ---------------------------------------------------------------------------------------------
// The MQTT fleet in a worker

class FleetWorker {
  private readonly received: FleetWorkerEvent[] = [];
  private readonly listeners: Array<(event: FleetWorkerEvent) => void> = [];
  readonly worker: Worker;

  constructor(ctx: FleetContext, data: FleetWorkerData) {
    this.worker = startTsWorker(join(__dirname, 'fleet-worker.ts'), data, { maxOldGenerationSizeMb: 4096 });
    ctx.workers.push(this.worker);
    this.worker.on('message', (event: FleetWorkerEvent) => {
      if (event.type === 'connecting')
        log(`fleet ${data.role}: ${event.connected} connected, ${event.failed} failed…`);
      this.received.push(event);
      this.listeners.forEach((listener) => listener(event));
    });
    this.worker.on('error', (error) => log(`fleet ${data.role} worker failed: ${String(error)}`));
  }

  on(listener: (event: FleetWorkerEvent) => void): void {
    this.listeners.push(listener);
  }

  send(command: FleetWorkerCommand): void {
    this.worker.postMessage(command);
  }

  /** The next event of `type` (or one already received and not taken), within `timeoutMs`. */
  next<T extends FleetWorkerEvent['type']>(
    type: T,
    timeoutMs: number,
  ): Promise<Extract<FleetWorkerEvent, { type: T }>> {
    const index = this.received.findIndex((event) => event.type === type);
    if (index >= 0)
      return Promise.resolve(this.received.splice(index, 1)[0] as Extract<FleetWorkerEvent, { type: T }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`fleet worker: no '${type}' within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.listeners.push((event) => {
        if (event.type !== type) return;
        const at = this.received.indexOf(event);
        if (at >= 0) this.received.splice(at, 1);
        clearTimeout(timer);
        resolve(event as Extract<FleetWorkerEvent, { type: T }>);
      });
    });
  }

  async close(): Promise<void> {
    this.send({ type: 'close' });
    await this.next('closed', 30_000).catch(() => undefined);
    await this.worker.terminate();
  }
}

/** Row count every 250 ms until `done()` and the count has stood still for 2 s; bounded. */
async function watchRows(
  ctx: FleetContext,
  baseline: number,
  done: () => boolean,
  timeoutMs: number,
): Promise<{ rows: number; lastGrowthAt: number; peakPerSecond: number }> {
  const deadline = Date.now() + timeoutMs;
  const timeline: Array<{ at: number; rows: number }> = [];
  let last = 0;
  let lastGrowthAt = Date.now();
  while (Date.now() < deadline) {
    await sleep(250);
    const rows = (await ctx.totalRows()) - baseline;
    const now = Date.now();
    timeline.push({ at: now, rows });
    if (rows !== last) {
      last = rows;
      lastGrowthAt = now;
    } else if (done() && now - lastGrowthAt >= 2000) break;
  }
  let peak = 0;
  for (const point of timeline) {
    const before = [...timeline].reverse().find((earlier) => earlier.at <= point.at - 1000);
    if (before) peak = Math.max(peak, ((point.rows - before.rows) * 1000) / (point.at - before.at));
  }
  return { rows: last, lastGrowthAt, peakPerSecond: round(peak) };
}

/**
 * Checks a run of MQTT publishes against the table and the ingestor's tally: acknowledged =
 * tallied outcomes, tally's stored = new rows, every acknowledged message a row, nothing failed
 * or left unacknowledged.
 */
/** What every MQTT run reports of its connections and publishes. */
function publishFigures(
  name: string,
  connections: number,
  connected: { ms: number; connected: number; failures: string[] },
  stats: FleetPublishStats,
) {
  return {
    name,
    connections,
    connectSeconds: round(connected.ms / 1000, 2),
    connected: connected.connected,
    connectFailures: connected.failures,
    sent: stats.sent,
    acked: stats.acked,
    failed: stats.failed,
    unacked: stats.unacked.length,
    ackLatencyMs: latencySummary(stats.ackLatencies),
    maxLagMs: stats.maxLagMs,
    publishSeconds: round(Math.max(0.001, (stats.lastPublishAt - stats.firstPublishAt) / 1000), 2),
  };
}

async function mqttAccounting(
  ctx: FleetContext,
  stats: FleetPublishStats,
  stored: number,
  tally: Tally | undefined,
  againstBare: boolean,
  killed = false,
): Promise<{ exact: boolean; note: string; unackedStored: number; ackedNotStored: number }> {
  const unackedStored = againstBare ? 0 : await storedAmong(ctx.client, stats.unacked);
  const ackedRows = againstBare ? 0 : await storedAmong(ctx.client, stats.ackedMessages);
  const ackedNotStored = againstBare ? 0 : stats.acked - ackedRows;
  const notes: string[] = [];
  if (stats.failed + stats.unacked.length > 0)
    notes.push(
      `${stats.failed} failed, ${stats.unacked.length} unacknowledged (${unackedStored} of them stored)`,
    );
  if (killed) {
    if (stored !== stats.acked) notes.push(`${stats.acked} acknowledged, ${stored} rows`);
    if (ackedNotStored > 0) notes.push(`${ackedNotStored} acknowledged messages have no row`);
  } else if (!againstBare) {
    if (!tally) notes.push('no ingestor tally logged');
    else {
      if (tallied(tally) !== stats.sent - stats.failed)
        notes.push(
          `ingestor counted ${tallied(tally)} messages, ${stats.sent - stats.failed} were delivered`,
        );
      if (tally.stored !== stored) notes.push(`ingestor says ${tally.stored} stored, table has ${stored}`);
      if (tally.lost + tally.ignored + tally.rejected > 0)
        notes.push(`lost ${tally.lost}, ignored ${tally.ignored}, rejected ${tally.rejected}`);
    }
    if (ackedNotStored > 0) notes.push(`${ackedNotStored} acknowledged messages have no row`);
  }
  const exact =
    againstBare ||
    (killed &&
      stats.failed === 0 &&
      stats.unacked.length === 0 &&
      stored === stats.acked &&
      ackedNotStored === 0) ||
    (tally !== undefined &&
      stats.failed === 0 &&
      stats.unacked.length === 0 &&
      tallied(tally) === stats.sent &&
      tally.stored === stored &&
      ackedNotStored === 0 &&
      tally.lost + tally.ignored + tally.rejected === 0);
  return {
    exact,
    note:
      notes.join('; ') ||
      (againstBare
        ? 'bare broker: nothing stored'
        : killed
          ? 'ingestor killed, no tally: every message PUBACKed, stored = table, every PUBACKed message a row'
          : 'sent = stored + throttled + duplicate + refused (tally), stored = table, every PUBACKed message a row'),
    unackedStored,
    ackedNotStored,
  };
}

function latencySummary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50, 0), 1),
    p99: round(percentile(sorted, 99, 0), 1),
    max: round(sorted.at(-1) ?? 0, 1),
  };
}

/** Privileged forwarders: every source's first message, as fast as acknowledged. */
async function forwardersRun(
  ctx: FleetContext,
  name: string,
  url: string,
  sources: SeededSource[],
  stop: (() => Promise<Tally | undefined>) | undefined,
): Promise<MqttRun> {
  const bare = stop === undefined;
  await ctx.quiet(`fleet ${name}`);
  const worker = new FleetWorker(ctx, {
    role: 'forwarders',
    url,
    topicPrefix: ctx.topicPrefix,
    sources,
    seed: 31,
    forwarders: {
      count: ctx.options.forwarders,
      username: ctx.ingestorAccount.username,
      password: ctx.ingestorAccount.password,
      inflight: ctx.options.forwarderInflight,
    },
    connectConcurrency: ctx.options.forwarders,
    connectTimeoutMs: 15_000,
  });
  const connected = await worker.next('connected', 60_000);
  log(
    `fleet ${name}: ${connected.connected}/${ctx.options.forwarders} forwarders connected, ${sources.length} first messages…`,
  );
  const baseline = bare ? 0 : await ctx.totalRows();
  const usage = ctx.meter.begin();
  worker.send({ type: 'forward', ackTimeoutMs: 60_000 });
  let published: FleetPublishStats | undefined;
  const publishedEvent = worker.next('published', 60_000 + sources.length * 10);
  void publishedEvent.then((event) => (published = event.stats)).catch(() => undefined);
  const rows = bare
    ? undefined
    : await watchRows(ctx, baseline, () => published !== undefined, 120_000 + sources.length * 10);
  const stats = (await publishedEvent).stats;
  const spent = usage.end();
  await worker.close();
  const tally = stop ? await stop() : undefined;
  const stored = bare ? 0 : (await ctx.totalRows()) - baseline;
  const figures = publishFigures(name, ctx.options.forwarders, connected, stats);
  const storedSeconds = Math.max(
    0.001,
    ((rows?.lastGrowthAt ?? stats.lastAckAt) - stats.firstPublishAt) / 1000,
  );
  const accounting = await mqttAccounting(ctx, stats, stored, tally, bare);
  return {
    ...figures,
    unackedStored: accounting.unackedStored,
    ackedNotStored: accounting.ackedNotStored,
    stored,
    storedPerSecond: round((bare ? stats.acked : stored) / storedSeconds),
    peakPerSecond: rows?.peakPerSecond ?? round(stats.acked / storedSeconds),
    tally,
    usage: spent,
    accountingExact: accounting.exact,
    accountingNote: accounting.note,
  };
}

/**
 * Publishes sampled (source, ts) are looked up every 50 ms by primary key: a row first seen by a
 * poll was committed before that poll's answer, so the poll's end bounds the commit from above
 * (resolution: the interval plus one query).
 */
class CommitClock {
  private pending: Array<[string, number, number]> = [];
  readonly latencies: number[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly client: Client) {}

  add(batch: Array<[string, number, number]>): void {
    this.pending.push(...batch);
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await sleep(COMMIT_POLL_MS);
        if (this.pending.length === 0) continue;
        const asked = this.pending;
        const { rows } = await this.client.query<{ i: number }>(
          `SELECT p.i FROM unnest($1::uuid[], $2::timestamptz[], $3::int[]) AS p(id, ts, i)
             JOIN telemetry t ON t.sun_source_id = p.id AND t.ts = p.ts`,
          [asked.map(([id]) => id), asked.map(([, ts]) => new Date(ts)), asked.map((_, i) => i)],
        );
        const seenAt = Date.now();
        const seen = new Set(rows.map((row) => row.i));
        for (const i of seen) this.latencies.push(seenAt - asked[i][2]);
        // Batches added while the query ran are kept.
        this.pending = [...asked.filter((_, i) => !seen.has(i)), ...this.pending.slice(asked.length)];
      }
    })();
  }

  /** Polls on until every sample is seen or `timeoutMs` passed; returns how many were never seen. */
  async finish(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.length > 0 && Date.now() < deadline) await sleep(COMMIT_POLL_MS);
    this.stopped = true;
    await this.loop;
    return this.pending.length;
  }
}

/** Device connections: connect the fleet, then each device publishes every 10 s for a few rounds. */
async function devicesRun(
  ctx: FleetContext,
  name: string,
  url: string,
  sources: SeededSource[],
  bare: boolean,
): Promise<{
  worker: FleetWorker;
  run: Omit<MqttRun, 'tally' | 'accountingExact' | 'accountingNote' | 'unackedStored' | 'ackedNotStored'>;
  stats: FleetPublishStats;
  baseline: number;
}> {
  await ctx.quiet(`fleet ${name} connect`);
  const worker = new FleetWorker(ctx, {
    role: 'devices',
    url,
    topicPrefix: ctx.topicPrefix,
    sources,
    seed: 47,
    connectConcurrency: 50,
    connectTimeoutMs: 60_000,
  });
  const connectUsage = ctx.meter.begin();
  const connected = await worker.next('connected', 60_000 + sources.length * 50);
  connectUsage.end();
  log(
    `fleet ${name}: ${connected.connected}/${sources.length} devices connected in ${round(connected.ms / 1000, 1)} s`,
  );
  await ctx.quiet(`fleet ${name} publish`);
  const baseline = bare ? 0 : await ctx.totalRows();
  const clock = bare ? undefined : new CommitClock(ctx.client);
  worker.on((event) => {
    if (event.type === 'samples') clock?.add(event.batch);
  });
  const rate = sources.length / (FLEET_PERIOD_MS / 1000);
  const sampleEvery = Math.max(1, Math.floor(rate / COMMIT_SAMPLES_PER_SECOND));
  const usage = ctx.meter.begin();
  clock?.start();
  const periodMs = FLEET_PERIOD_MS;
  worker.send({
    type: 'publish',
    startAt: Date.now() + 200,
    rounds: ctx.options.deviceRounds,
    periodMs,
    ackTimeoutMs: 60_000,
    sampleEvery,
  });
  log(
    `fleet ${name}: ${sources.length} devices publish every ${periodMs / 1000} s for ${ctx.options.deviceRounds} rounds (${rate} msg/s)…`,
  );
  let published: FleetPublishStats | undefined;
  const publishedEvent = worker.next('published', ctx.options.deviceRounds * periodMs + 90_000);
  void publishedEvent.then((event) => (published = event.stats)).catch(() => undefined);
  const rows = bare
    ? undefined
    : await watchRows(
        ctx,
        baseline,
        () => published !== undefined,
        ctx.options.deviceRounds * periodMs + 120_000,
      );
  const stats = (await publishedEvent).stats;
  const notSeen = clock ? await clock.finish(10_000) : 0;
  const spent = usage.end();
  const stored = bare ? 0 : (await ctx.totalRows()) - baseline;
  const figures = publishFigures(name, sources.length, connected, stats);
  const commit = clock ? latencySummary(clock.latencies) : undefined;
  return {
    worker,
    stats,
    baseline,
    run: {
      ...figures,
      stored,
      storedPerSecond: round((bare ? stats.acked : stored) / figures.publishSeconds),
      peakPerSecond: rows?.peakPerSecond ?? 0,
      commitLatencyMs: commit && { ...commit, sampled: clock!.latencies.length + notSeen, notSeen },
      usage: spent,
    },
  };
}

/** Ends `child` at once, as a crash or the kernel's OOM killer would. */
async function kill(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited;
}

/**
 * With the devices connected: stops the broker (`stopBroker`: SIGTERM as a deploy does, or
 * SIGKILL as a crash), starts it again, and times until every device is connected again.
 */
async function stormRun(
  worker: FleetWorker,
  signal: 'SIGTERM' | 'SIGKILL',
  devices: number,
  brokerPort: number,
  stopBroker: () => Promise<Tally | undefined>,
  startBroker: () => Promise<void>,
  timeoutMs: number,
): Promise<StormRun & { killAt: number; settledAt: number }> {
  let latest = { connected: 0, attempts: 0, failures: {} as Record<string, number> };
  worker.on((event) => {
    if (event.type === 'status')
      latest = { connected: event.connected, attempts: event.attempts, failures: event.failures };
  });
  worker.send({ type: 'watch', everyMs: 50 });
  await sleep(200);
  const attemptsBefore = latest.attempts;
  const failuresBefore = latest.failures;
  const killAt = Date.now();
  const tallyBefore = await stopBroker();
  const downAt = Date.now();
  const startAt = Date.now();
  const started = startBroker();
  await accepting(brokerPort, 30_000);
  const brokerAt = Date.now();
  await started;
  const readyAt = Date.now();
  const deadline = Date.now() + timeoutMs;
  while (latest.connected < devices && Date.now() < deadline) await sleep(50);
  const allAt = latest.connected >= devices ? Date.now() : undefined;
  worker.send({ type: 'unwatch' });
  return {
    devices,
    signal,
    stopSeconds: round((downAt - killAt) / 1000, 2),
    readySeconds: round((readyAt - startAt) / 1000, 2),
    brokerSeconds: round((brokerAt - startAt) / 1000, 2),
    reconnectSeconds: allAt === undefined ? undefined : round((allAt - brokerAt) / 1000, 2),
    reconnected: latest.connected,
    attempts: latest.attempts - attemptsBefore,
    failures: Object.fromEntries(
      Object.entries(latest.failures)
        .map(([kind, count]) => [kind, count - (failuresBefore[kind] ?? 0)] as const)
        .filter(([, count]) => count > 0),
    ),
    tallyBefore,
    killAt,
    settledAt: allAt ?? Date.now(),
  };
}

// ---------------------------------------------------------------------------------------------
// The scenario

export async function runFleet(ctx: FleetContext): Promise<FleetReport> {
  const o = ctx.options;
  const steadyRate = o.sources / (FLEET_PERIOD_MS / 1000);
  log(
    `fleet: seeding ${o.sources} + ${o.coldRate * o.coldSeconds} webhook and ${o.mqttSources} + ${o.devices} MQTT sources…`,
  );
  const fleet = await ctx.seed('Webhook', o.sources, 'fleet webhook');
  const coldRateSources = await ctx.seed('Webhook', o.coldRate * o.coldSeconds, 'fleet webhook cold rate');
  const forwarded = await ctx.seed('MQTT', o.mqttSources, 'fleet forwarded');
  const deviceSources = await ctx.seed('MQTT', o.devices, 'fleet device');
  const mqttPort = Number(new URL(ctx.mqttUrl).port);

  // Webhook, cold: a fresh api before each run, every message its source's first.
  await ctx.restartApi();
  const coldMaximum = await ctx.webhookPhase(
    'fleet cold, maximum',
    ctx.apiPort,
    fleet,
    o.maxConnections,
    undefined,
    {
      durationSeconds: 0,
      clock: 'current',
      amount: fleet.length,
    },
  );
  const coldMaximumEnd = Date.now();
  await ctx.restartApi();
  const coldRate = await ctx.webhookPhase(
    'fleet cold, fixed rate',
    ctx.apiPort,
    coldRateSources,
    o.rateConnections,
    o.coldRate,
    {
      durationSeconds: o.coldSeconds,
      clock: 'current',
      keepSamples: true,
    },
  );
  splitFirstSecond(coldRate);
  // Steady: the same fleet, each source every 10 s; its previous message at least 10 s back.
  // The api was restarted since it saw the fleet: the first period (each source's first message
  // to it) is a warm-up reported apart, so that what is measured is the steady state.
  await sleep(Math.max(0, coldMaximumEnd + FLEET_PERIOD_MS - Date.now()));
  // The api's own split of a message's wait is read over the measured part only.
  let measuredFrom: MetricsScrape | undefined;
  const steady = await ctx.webhookPhase('fleet steady', ctx.apiPort, fleet, o.maxConnections, steadyRate, {
    durationSeconds: o.steadySeconds,
    warmupSeconds: FLEET_PERIOD_MS / 1000,
    clock: 'current',
    alongside: async () => {
      await sleep(FLEET_PERIOD_MS);
      measuredFrom = await scrapeApiMetrics(ctx.apiMetricsUrl);
    },
  });
  const measuredTo = await scrapeApiMetrics(ctx.apiMetricsUrl);
  const steadyIntakeSteps = intakeSteps(measuredFrom, measuredTo);
  const steadyEventLoop = measuredFrom ? eventLoopIntervals(measuredTo) : undefined;

  // MQTT through privileged forwarders, on a fresh ingestor (its ready time measured).
  const ingestorReadySeconds: number[] = [];
  const startIngestor = async () => {
    const startedAt = Date.now();
    const child = await ctx.startIngestor();
    ingestorReadySeconds.push(round((Date.now() - startedAt) / 1000, 2));
    return child;
  };
  let ingestor = await startIngestor();
  const stopIngestor = async () => {
    const child = ingestor;
    await ctx.stopApp(child, 60_000);
    return tallyOf(child);
  };
  const forwarders = await forwardersRun(ctx, 'forwarders', ctx.mqttUrl, forwarded, stopIngestor);

  // Device connections on a fresh ingestor, then the reconnect storm with webhook load alongside.
  ingestor = await startIngestor();
  const devices = await devicesRun(ctx, 'devices', ctx.mqttUrl, deviceSources, false);
  let storm: (StormRun & { killAt: number; settledAt: number }) | undefined;
  let devicesTally: Tally | undefined;
  const stormRate = Math.min(o.stormRate, steadyRate);
  const stormWebhook = await ctx.webhookPhase(
    'fleet storm',
    ctx.apiPort,
    fleet,
    o.rateConnections,
    stormRate,
    {
      durationSeconds: o.stormSeconds,
      clock: 'current',
      keepSamples: true,
      alongside: async () => {
        await sleep(Math.min(3000, (o.stormSeconds * 1000) / 4));
        storm = await stormRun(
          devices.worker,
          o.stormSignal,
          devices.run.connected,
          mqttPort,
          async () => {
            if (o.stormSignal === 'SIGKILL') {
              await kill(ingestor);
              return undefined;
            }
            devicesTally = await stopIngestor();
            return devicesTally;
          },
          async () => {
            ingestor = await startIngestor();
          },
          Math.max(1000, o.stormSeconds * 1000 - 3000),
        );
      },
    },
  );
  const samples = stormWebhook.samples ?? [];
  delete stormWebhook.samples;
  const stormReport: StormRun = {
    ...storm!,
    webhookBefore: windowLatency(samples, 0, storm!.killAt),
    webhookDuring: windowLatency(samples, storm!.killAt, storm!.settledAt + 1),
  };
  await devices.worker.close();
  // Killed, the ingestor that served the devices logged no tally: the table alone answers.
  const devicesAccounting = await mqttAccounting(
    ctx,
    devices.stats,
    devices.run.stored,
    devicesTally,
    false,
    o.stormSignal === 'SIGKILL',
  );
  const devicesRunReport: MqttRun = {
    ...devices.run,
    tally: devicesTally,
    unackedStored: devicesAccounting.unackedStored,
    ackedNotStored: devicesAccounting.ackedNotStored,
    accountingExact: devicesAccounting.exact,
    accountingNote: devicesAccounting.note,
  };
  const lastTally = await stopIngestor();

  // The same loads against the bare servers.
  const bare = await bareRuns(ctx, fleet, coldRateSources, steadyRate, forwarded, deviceSources);

  return {
    sources: o.sources,
    webhook: { coldMaximum, coldRate, steady, storm: stormWebhook, bare: bare.http },
    steadyIntakeSteps,
    steadyEventLoop,
    ingestorReadySeconds,
    forwarders,
    devices: devicesRunReport,
    storm: stormReport,
    bareMqtt: bare.mqtt,
    lastTally,
    stored:
      coldMaximum.stored +
      coldRate.stored +
      steady.stored +
      stormWebhook.stored +
      forwarders.stored +
      devices.run.stored +
      (lastTally?.stored ?? 0),
  };
}

async function bareRuns(
  ctx: FleetContext,
  fleet: SeededSource[],
  coldRateSources: SeededSource[],
  steadyRate: number,
  forwarded: SeededSource[],
  deviceSources: SeededSource[],
) {
  const o = ctx.options;
  const httpPort = await freePort();
  const server = startNode(
    'bare',
    [
      '-e',
      `require('node:http').createServer((q, r) => r.end()).listen(${httpPort}, '127.0.0.1', () => console.log('ready'))`,
    ],
    { cwd: ctx.root, env: {} },
  );
  ctx.children.push(server);
  const deadline = Date.now() + 10_000;
  while (!server.tail.includes('ready') && Date.now() < deadline) await sleep(50);
  ctx.meter.watchPid('bare server', server.pid);
  const bareLoad = async (
    name: string,
    targets: SeededSource[],
    connections: number,
    rate: number | undefined,
    seconds: number,
    amount?: number,
  ) => {
    log(`fleet ceiling ${name}: bare Node HTTP server…`);
    await ctx.quiet(`fleet ceiling ${name}`);
    const usage = ctx.meter.begin();
    const result = await runWebhookLoad({
      port: httpPort,
      targets,
      generator: o.generator,
      connections,
      overallRate: rate,
      durationSeconds: seconds,
      amount,
      clock: 'current',
      startTs: 0,
      seed: 17,
      resendShare: 0,
      probeShare: 0,
    });
    return bareFigure(result, usage.end());
  };
  const http = {
    coldMaximum: await bareLoad('cold, maximum', fleet, o.maxConnections, undefined, 0, fleet.length),
    coldRate: await bareLoad(
      'cold, fixed rate',
      coldRateSources,
      o.rateConnections,
      o.coldRate,
      o.coldSeconds,
    ),
    steady: await bareLoad('steady', fleet, o.maxConnections, steadyRate, o.steadySeconds),
  };
  await stopChild(server, 5000);

  const brokerPort = await freePort();
  const url = `mqtt://127.0.0.1:${brokerPort}`;
  let broker: Child | undefined;
  const startBroker = async () => {
    broker = startNode(
      'bare broker',
      [
        '-e',
        `const { Aedes } = require('aedes'); Aedes.createBroker().then((b) => require('node:net').createServer(b.handle).listen(${brokerPort}, '127.0.0.1', () => console.log('ready')))`,
      ],
      { cwd: ctx.root, env: {} },
    );
    ctx.children.push(broker);
    ctx.meter.rewatchPid('bare broker', broker.pid);
    const until = Date.now() + 10_000;
    while (!broker.tail.includes('ready') && Date.now() < until) await sleep(20);
  };
  const stopBroker = async () => {
    if (broker) await stopChild(broker, 5000);
    return undefined;
  };
  const killBroker = async () => {
    if (broker) await kill(broker);
    return undefined;
  };
  await startBroker();
  const forwarders = await forwardersRun(ctx, 'ceiling forwarders', url, forwarded, undefined);
  const devices = await devicesRun(ctx, 'ceiling devices', url, deviceSources, true);
  const storm = await stormRun(
    devices.worker,
    o.stormSignal,
    devices.run.connected,
    brokerPort,
    o.stormSignal === 'SIGKILL' ? killBroker : stopBroker,
    startBroker,
    30_000,
  );
  await devices.worker.close();
  await stopBroker();
  const { killAt: _killAt, settledAt: _settledAt, ...stormFigures } = storm;
  return {
    http,
    mqtt: {
      forwarders,
      devices: {
        ...devices.run,
        unackedStored: 0,
        ackedNotStored: 0,
        accountingExact: true,
        accountingNote: 'bare broker: nothing stored',
      },
      storm: stormFigures,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Report

export interface FleetCheck {
  target: string;
  met: boolean;
  detail: string;
}

const webhookExact = (phase: FleetWebhookPhase) => phase.accountingExact;

export function fleetChecks(report: FleetReport): FleetCheck[] {
  const w = report.webhook;
  const t = FLEET_TARGETS;
  const bare = w.bare;
  return [
    {
      target: `Fleet webhook cold ≥ ${t.storedPerSecond} stored/s (${report.sources} sources, each message its first)`,
      met: w.coldMaximum.storedPerSecond >= t.storedPerSecond,
      detail: `${w.coldMaximum.storedPerSecond}/s (bare server ${bare.coldMaximum.requestsPerSecond} req/s)`,
    },
    {
      target: `Fleet webhook cold p99 < ${t.coldP99Ms} ms at ${w.coldRate.overallRate} req/s`,
      met:
        w.coldRate.result.latency.p99 < t.coldP99Ms &&
        w.coldRate.result.requestsPerSecond >= (w.coldRate.overallRate ?? 0) * 0.95,
      detail: `p99 ${w.coldRate.result.latency.p99} ms, p50 ${w.coldRate.result.latency.p50} ms (bare p99 ${bare.coldRate.latency.p99} ms)`,
    },
    {
      target: `Fleet webhook steady p99 < ${t.steadyP99Ms} ms at ${w.steady.overallRate} msg/s`,
      met:
        w.steady.result.latency.p99 < t.steadyP99Ms &&
        w.steady.result.requestsPerSecond >= (w.steady.overallRate ?? 0) * 0.95,
      detail: `p99 ${w.steady.result.latency.p99} ms, p50 ${w.steady.result.latency.p50} ms (bare p99 ${bare.steady.latency.p99} ms)`,
    },
    {
      target: `Fleet MQTT forwarders ≥ ${t.storedPerSecond} stored msg/s (first contact, rows over time)`,
      met: report.forwarders.storedPerSecond >= t.storedPerSecond,
      detail: `${report.forwarders.storedPerSecond}/s first publish → last row, best second ${report.forwarders.peakPerSecond}/s (bare broker ${report.bareMqtt.forwarders.storedPerSecond} acks/s)`,
    },
    {
      target: `Fleet MQTT ${report.devices.connections} devices: publish → committed row p99 < ${t.commitP99Ms} ms, every PUBACKed message stored`,
      met:
        report.devices.connected === report.devices.connections &&
        (report.devices.commitLatencyMs?.p99 ?? Infinity) < t.commitP99Ms &&
        report.devices.commitLatencyMs?.notSeen === 0 &&
        report.devices.ackedNotStored === 0,
      detail:
        `commit p99 ${report.devices.commitLatencyMs?.p99} ms (${report.devices.commitLatencyMs?.sampled} sampled), ` +
        `PUBACK p99 ${report.devices.ackLatencyMs.p99} ms (bare ${report.bareMqtt.devices.ackLatencyMs.p99} ms), ` +
        `${report.devices.connected}/${report.devices.connections} connected`,
    },
    {
      target: `Fleet ingestor ready < ${t.readyMs / 1000} s after start`,
      met: report.ingestorReadySeconds.every((seconds) => seconds * 1000 < t.readyMs),
      detail: `${report.ingestorReadySeconds.join(' s, ')} s (bare broker ${report.bareMqtt.storm.readySeconds} s)`,
    },
    {
      target: `Fleet ${report.storm.devices} devices reconnected < ${t.reconnectMs / 1000} s after the broker is back`,
      met:
        report.storm.reconnectSeconds !== undefined && report.storm.reconnectSeconds * 1000 < t.reconnectMs,
      detail:
        `${report.storm.reconnectSeconds ?? `not all (${report.storm.reconnected})`} s, ${report.storm.attempts} attempts ` +
        `(bare broker ${report.bareMqtt.storm.reconnectSeconds ?? 'not all'} s)`,
    },
    {
      target: `Fleet webhook p99 < ${t.stormP99Ms} ms during the reconnect storm`,
      met: (report.storm.webhookDuring?.p99 ?? Infinity) < t.stormP99Ms,
      detail: `p99 ${report.storm.webhookDuring?.p99} ms during, ${report.storm.webhookBefore?.p99} ms before`,
    },
    {
      target: 'Fleet zero loss, sent = stored + throttled + duplicate + refused',
      met:
        [w.coldMaximum, w.coldRate, w.steady, w.storm].every(webhookExact) &&
        report.forwarders.accountingExact &&
        report.devices.accountingExact &&
        tallied(report.lastTally) === 0,
      detail: [
        ...[w.coldMaximum, w.coldRate, w.steady, w.storm].map(
          (phase) => `${phase.name}: ${phase.accountingNote}`,
        ),
        `forwarders: ${report.forwarders.accountingNote}`,
        `devices: ${report.devices.accountingNote}`,
        ...(tallied(report.lastTally) > 0
          ? [`restarted ingestor counted ${tallied(report.lastTally)} messages`]
          : []),
      ].join('; '),
    },
  ];
}

const microsLine = (micros: Record<string, number>) =>
  Object.entries(micros)
    .map(([name, value]) => `${name} ${value} µs`)
    .join(', ');

export function printFleet(
  report: FleetReport,
  line: (text?: string) => void,
  usageLine: (usage: PhaseUsage) => string,
): void {
  const w = report.webhook;
  const webhook = (phase: FleetWebhookPhase, bare: BareFigure | undefined) => {
    const r = phase.result;
    line();
    line(
      `── Fleet webhook, ${phase.name}: ${phase.overallRate ? `${phase.overallRate} req/s open loop` : 'as fast as answered'}, ` +
        `${phase.connections} connections, ${phase.sources} sources, current clock ──`,
    );
    line(
      ` sent         ${r.sent} in ${round(r.seconds, 2)} s = ${round(r.requestsPerSecond)} req/s answered` +
        (bare ? ` │ bare server ${bare.requestsPerSecond} req/s` : ''),
    );
    line(
      ` answers      stored ${r.outcomes.stored}, throttled ${r.outcomes.throttled}, duplicate ${r.outcomes.duplicate}, ` +
        `429 ${r.outcomes.overBudget}, 400 ${r.outcomes.rejected}, 404 ${r.outcomes.notFound}, 503 ${r.outcomes.unavailable}, ` +
        `other ${r.outcomes.otherStatus}; unanswered ${r.unanswered} (${phase.unansweredStored} stored); errors ${r.errors}, timeouts ${r.timeouts}`,
    );
    line(
      ` latency      p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms` +
        (bare ? ` │ bare server p50 ${bare.latency.p50} ms, p99 ${bare.latency.p99} ms` : ''),
    );
    if (r.warmupLatency)
      line(
        `              not counted above: the first ${r.warmupLatency.seconds} s at the same rate ` +
          `(each source's first message to this api), p50 ${r.warmupLatency.p50} ms, p99 ${r.warmupLatency.p99} ms`,
      );
    if (phase.firstSecond && phase.afterFirstSecond) {
      line(
        `              first second p50 ${phase.firstSecond.p50} ms, p99 ${phase.firstSecond.p99} ms (${phase.firstSecond.count}); ` +
          `after it p50 ${phase.afterFirstSecond.p50} ms, p99 ${phase.afterFirstSecond.p99} ms (${phase.afterFirstSecond.count})`,
      );
    }
    line(` stored       ${phase.stored} rows = ${phase.storedPerSecond}/s`);
    line(` accounting   ${phase.accountingExact ? 'EXACT' : 'MISMATCH'}: ${phase.accountingNote}`);
    line(`              ${usageLine(phase.usage)}`);
    const perRequest = cpuMicrosPer(phase.usage, answeredOf(r), ['api', 'postgres', 'redis', 'bench']);
    line(
      ` CPU/request  ${microsLine(perRequest)}` +
        (bare ? ` │ bare server: ${microsLine(bare.cpuMicrosPerRequest)}` : ''),
    );
  };
  webhook(w.coldMaximum, w.bare.coldMaximum);
  webhook(w.coldRate, w.bare.coldRate);
  webhook(w.steady, w.bare.steady);
  if (report.steadyIntakeSteps.length > 0) {
    const steps = report.steadyIntakeSteps.map(
      (step) => `${step.stage} mean ${round(step.meanMs, 2)} ms, p99 ≤ ${step.p99AtMostMs ?? '?'} ms`,
    );
    line(` intake steps the api's own histogram after the first period: ${steps.join('; ')}`);
  }
  if (report.steadyEventLoop) {
    const loop = report.steadyEventLoop;
    line(
      ` event loop   the api's 10 ms timer fired after p50 ${loop.p50Ms} ms, p99 ${loop.p99Ms} ms, ` +
        `max ${loop.maxMs} ms over the same part (10 ms: a free loop)`,
    );
  }

  const mqtt = (run: MqttRun, bare: MqttRun, title: string) => {
    line();
    line(`── Fleet MQTT, ${title} ──`);
    line(
      ` connect      ${run.connected}/${run.connections} in ${run.connectSeconds} s │ bare broker ${bare.connected}/${bare.connections} in ${bare.connectSeconds} s` +
        (run.connectFailures.length ? `; failures: ${run.connectFailures.join(' | ')}` : ''),
    );
    line(
      ` sent         ${run.sent} in ${run.publishSeconds} s; PUBACKed ${run.acked}, failed ${run.failed}, unacknowledged ${run.unacked} ` +
        `(${run.unackedStored} stored); worst schedule lag ${run.maxLagMs} ms`,
    );
    line(
      ` PUBACK       p50 ${run.ackLatencyMs.p50} ms, p99 ${run.ackLatencyMs.p99} ms, max ${run.ackLatencyMs.max} ms │ ` +
        `bare broker p50 ${bare.ackLatencyMs.p50} ms, p99 ${bare.ackLatencyMs.p99} ms`,
    );
    if (run.commitLatencyMs) {
      const c = run.commitLatencyMs;
      line(
        ` committed    publish → row seen (polled every ${COMMIT_POLL_MS} ms by primary key, ${c.sampled} sampled): ` +
          `p50 ${c.p50} ms, p99 ${c.p99} ms, max ${c.max} ms; never seen ${c.notSeen}`,
      );
    }
    line(
      ` stored       ${run.stored} rows, ${run.storedPerSecond}/s first publish → last row, best second ${run.peakPerSecond}/s │ ` +
        `bare broker ${bare.storedPerSecond} acks/s`,
    );
    const t = run.tally;
    line(
      ` ingestor     ${
        t
          ? Object.entries(t)
              .map(([key, n]) => `${key} ${n}`)
              .join(', ')
          : 'no tally'
      }`,
    );
    line(` accounting   ${run.accountingExact ? 'EXACT' : 'MISMATCH'}: ${run.accountingNote}`);
    line(`              ${usageLine(run.usage)}`);
    if (run.stored > 0) {
      const perMessage = cpuMicrosPer(run.usage, run.stored, ['ingestor', 'postgres', 'redis', 'bench']);
      line(` CPU/message  ${microsLine(perMessage)} (per stored message)`);
    }
  };
  mqtt(
    report.forwarders,
    report.bareMqtt.forwarders,
    `${report.forwarders.connections} privileged forwarders, QoS 1, each source's first message`,
  );
  mqtt(
    report.devices,
    report.bareMqtt.devices,
    `${report.devices.connections} devices through the embedded broker, one message per 10 s each`,
  );

  const s = report.storm;
  const b = report.bareMqtt.storm;
  line();
  line(
    `── Fleet reconnect storm: ingestor stopped (${s.signal}) and started with ${s.devices} devices connected ──`,
  );
  line(
    ` ready        ingestor ready ${report.ingestorReadySeconds.join(' s, ')} s after each start │ bare broker ${b.readySeconds} s`,
  );
  line(
    ` storm        stopped in ${s.stopSeconds} s; broker accepting ${s.brokerSeconds} s after start; all ${s.devices} reconnected ` +
      `${s.reconnectSeconds ?? `NOT (${s.reconnected})`} s after that, ${s.attempts} attempts │ bare broker ${b.reconnectSeconds ?? `not all (${b.reconnected})`} s, ${b.attempts} attempts`,
  );
  const failures = Object.entries(s.failures).sort((x, y) => y[1] - x[1]);
  if (failures.length > 0)
    line(
      `              errors the devices saw: ${failures.map(([kind, count]) => `${count} × ${kind}`).join('; ')}`,
    );
  line(
    ` webhook      ${w.storm.overallRate} req/s alongside: p99 ${s.webhookBefore?.p99} ms before (${s.webhookBefore?.count}), ` +
      `p99 ${s.webhookDuring?.p99} ms, p50 ${s.webhookDuring?.p50} ms during (${s.webhookDuring?.count}); accounting ` +
      `${w.storm.accountingExact ? 'EXACT' : 'MISMATCH'}: ${w.storm.accountingNote}`,
  );
  line(
    ` restarted    ingestor tally after the storm: ${
      report.lastTally
        ? Object.entries(report.lastTally)
            .map(([key, n]) => `${key} ${n}`)
            .join(', ')
        : 'nothing logged (no message)'
    }`,
  );
}
