import autocannon from 'autocannon';
import { join } from 'node:path';
import { DeviceScript, MessageKind, seededRandom } from './device-script';
import { percentile } from './processes';
import { SocketConnection, TimeoutError } from './socket-client';
import { startTsWorker } from './ts-worker';

export interface WebhookTarget {
  id: string;
  secret: string;
}

export interface WebhookRunOptions {
  port: number;
  /** Sources, each sent to in turn; every request goes to the next one. */
  targets: readonly WebhookTarget[];
  /**
   * `sockets` (`runSockets`): with a rate, open loop, one request every 1/rate s whatever the
   * answers (latency counted from the scheduled instant); without, closed loop.
   * `autocannon`: closed loop over `connections` (with `overallRate`, autocannon's
   * per-connection quota per second).
   */
  generator: 'sockets' | 'autocannon';
  connections: number;
  /** Requests per second; unset: as fast as the server answers. */
  overallRate?: number;
  durationSeconds: number;
  /**
   * With a rate: sent at the rate before `durationSeconds`, counted in the accounting but not in
   * the latency figures (connections opening, caches and JIT warming; reported apart).
   */
  warmupSeconds?: number;
  startTs: number;
  /**
   * `script` (default): each source replays its script (device time 10 s apart from `startTs`,
   * resends, probes). `current`: a live fleet, every message a regular sample stamped with the
   * device's current clock: the instant it was due (with a rate; consecutive messages of one source are
   * then exactly sources / rate seconds apart) or the instant it was sent (autocannon).
   */
  clock?: 'script' | 'current';
  /** autocannon only: stop after this many requests (each source once: `targets.length`). */
  amount?: number;
  /** `sockets` only: keep [due instant (epoch ms), latency ms] of every answer, for windows of the run. */
  keepSamples?: boolean;
  seed: number;
  resendShare: number;
  probeShare: number;
}

export type WebhookOutcome =
  | 'stored'
  | 'throttled'
  | 'duplicate'
  | 'rejected'
  | 'overBudget'
  | 'notFound'
  | 'unavailable'
  | 'otherStatus';

export interface WebhookRunResult {
  generator: string;
  seconds: number;
  /** Requests written, answered or not. */
  sent: number;
  sentByKind: Record<MessageKind, number>;
  outcomes: Record<WebhookOutcome, number>;
  /** Answers that differ from what the message was built to get (e.g. a resend answered 200). */
  unexpected: number;
  /** Written but not answered when the run stopped: they may still have been stored. */
  unanswered: Array<{ sourceId: string; ts: number; kind: MessageKind }>;
  /**
   * The distinct (source, device time) of unanswered messages that no "stored" answer claims: a
   * row found for one of them was stored by an unanswered request (a resend of a message answered
   * "stored" finds that message's row, which is no extra row).
   */
  unclaimed: Array<{ sourceId: string; ts: number }>;
  /** Answers per second over the run. */
  requestsPerSecond: number;
  /** ms; with a rate: from the instant the request was due, so a server falling behind shows. */
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Runs at a rate with a warm-up: its latencies, left out of `latency`. */
  warmupLatency?: { seconds: number; p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /** `keepSamples`: [due instant (epoch ms), latency ms] of every answered request. */
  samples?: Array<[number, number]>;
}

interface Message {
  sourceId: string;
  ts: number;
  kind: MessageKind;
  path: string;
  body: string;
}

const expected: Record<MessageKind, WebhookOutcome> = {
  regular: 'stored',
  resend: 'duplicate',
  probe: 'throttled',
};

/**
 * The traffic and its bookkeeping, whatever sends it: every request goes to the next source with
 * that source's next scripted message (device time 10 s apart, the secret as `key`), and every
 * answer is classified from its status and body.
 */
class WebhookTraffic {
  readonly outcomes: Record<WebhookOutcome, number> = {
    stored: 0,
    throttled: 0,
    duplicate: 0,
    rejected: 0,
    overBudget: 0,
    notFound: 0,
    unavailable: 0,
    otherStatus: 0,
  };
  readonly sentByKind: Record<MessageKind, number> = { regular: 0, resend: 0, probe: 0 };
  readonly inFlight = new Map<number, Message>();
  sent = 0;
  unexpected = 0;
  private next = 0;
  private readonly scripts: DeviceScript[];
  /**
   * Stored messages' keys, to tell a resend's (source, device time) from a new one. Without
   * resends no two messages share one, and a live fleet's run does not keep a key per message.
   */
  private readonly storedKeys: Set<string> | undefined;

  constructor(private readonly options: WebhookRunOptions) {
    this.storedKeys = options.clock !== 'current' && options.resendShare > 0 ? new Set() : undefined;
    this.scripts = options.targets.map(
      (target, index) =>
        new DeviceScript(seededRandom(options.seed + index), {
          startTs: options.startTs,
          resendShare: options.resendShare,
          probeShare: options.probeShare,
          key: target.secret,
        }),
    );
    // A device's sample is drawn at its first `at`: before the run, not inside it.
    if (options.clock === 'current') for (const script of this.scripts) script.at(0);
  }

  /** The next request; `id` names it in `answered`. `now`: the device clock (`clock: 'current'`). */
  take(now?: number): { id: number; message: Message } {
    const index = this.next;
    this.next = (this.next + 1) % this.scripts.length;
    const script = this.scripts[index];
    const scripted =
      this.options.clock === 'current'
        ? { kind: 'regular' as const, ts: now ?? Date.now(), body: script.at(now ?? Date.now()) }
        : script.next();
    const sourceId = this.options.targets[index].id;
    const message: Message = {
      sourceId,
      ts: scripted.ts,
      kind: scripted.kind,
      path: `/api/webhook/sunsource/${sourceId}`,
      body: scripted.body,
    };
    const id = this.sent++;
    this.inFlight.set(id, message);
    this.sentByKind[message.kind] += 1;
    return { id, message };
  }

  answered(id: number, status: number, body: string): void {
    const message = this.inFlight.get(id);
    if (!message) return;
    this.inFlight.delete(id);
    const outcome = classify(status, body);
    this.outcomes[outcome] += 1;
    if (outcome === 'stored') this.storedKeys?.add(keyOf(message));
    if (expected[message.kind] !== outcome) this.unexpected += 1;
  }

  result(
    generator: string,
    seconds: number,
    stats: Pick<
      WebhookRunResult,
      'requestsPerSecond' | 'latency' | 'warmupLatency' | 'errors' | 'timeouts' | 'non2xx' | 'samples'
    >,
  ): WebhookRunResult {
    const unanswered = [...this.inFlight.values()].map(({ sourceId, ts, kind }) => ({ sourceId, ts, kind }));
    const unclaimed = new Map<string, { sourceId: string; ts: number }>();
    for (const message of unanswered) {
      if (!this.storedKeys?.has(keyOf(message))) unclaimed.set(keyOf(message), message);
    }
    return {
      generator,
      seconds,
      sent: this.sent,
      // Copies: requests still open now may be answered while the run winds down, and must not
      // count both as answered and as unanswered.
      sentByKind: { ...this.sentByKind },
      outcomes: { ...this.outcomes },
      unexpected: this.unexpected,
      unanswered,
      unclaimed: [...unclaimed.values()].map(({ sourceId, ts }) => ({ sourceId, ts })),
      ...stats,
    };
  }
}

const keyOf = (message: { sourceId: string; ts: number }) => `${message.sourceId}|${message.ts}`;

export function runWebhookLoad(options: WebhookRunOptions): Promise<WebhookRunResult> {
  return options.generator === 'sockets' ? runSocketsInWorker(options) : runAutocannon(options);
}

/** `runSockets` in a worker thread of its own (webhook-worker.ts says why). */
function runSocketsInWorker(options: WebhookRunOptions): Promise<WebhookRunResult> {
  // Only what a run reads of each target: a seeded source may carry more.
  const worker = startTsWorker(join(__dirname, 'webhook-worker.ts'), {
    ...options,
    targets: options.targets.map(({ id, secret }) => ({ id, secret })),
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (message: { result?: WebhookRunResult; error?: string }) => {
      if (message.result) resolve(message.result);
      else reject(new Error(`webhook load failed: ${message.error}`));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`webhook load worker exited with code ${code}`)));
  });
}

/** Closed loop: `connections` keep-alive connections, each sending its next request on an answer. */
async function runAutocannon(options: WebhookRunOptions): Promise<WebhookRunResult> {
  const traffic = new WebhookTraffic(options);
  // autocannon gives the same per-connection context object to the request's setupRequest and,
  // with pipelining 1, to the onResponse of that request.
  type Context = { request?: number };
  const setupRequest = (request: autocannon.Request, context: Context): autocannon.Request => {
    const { id, message } = traffic.take();
    context.request = id;
    return {
      ...request,
      method: 'POST',
      path: message.path,
      headers: { 'content-type': 'application/json' },
      body: message.body,
    };
  };
  const onResponse = (status: number, body: string, context: Context) => {
    if (context.request !== undefined) traffic.answered(context.request, status, body);
  };
  const startedAt = process.hrtime.bigint();
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    pipelining: 1,
    timeout: 10,
    requests: [{ setupRequest, onResponse }],
  });
  const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
  return traffic.result('autocannon', seconds, {
    requestsPerSecond: result.requests.average,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  });
}

/**
 * `sockets`: `connections` keep-alive connections of the bench's own client (`SocketConnection`:
 * a quarter of Node's client's CPU per request). With a rate, open loop: request i is due at
 * start + i/rate, sent then (or as soon as a connection is free: the wait counts in its latency),
 * whatever happened to the others. This is "p99 at 1,000 requests per second" as a fleet
 * produces it; a server slower than the rate shows as growing latency instead of a lower rate.
 * Without a rate, closed loop: each connection sends its next request on an answer, until
 * `amount` requests are sent or `durationSeconds` are over; latency from the send.
 */
export async function runSockets(options: WebhookRunOptions): Promise<WebhookRunResult> {
  const rate = options.overallRate;
  const traffic = new WebhookTraffic(options);
  const latencies: number[] = [];
  // Two flat arrays of doubles, paired at the end: a pair per answer would leave the run's heap
  // one small array per request to collect.
  const sampleDue: number[] = [];
  const sampleLatency: number[] = [];
  let errors = 0;
  let timeouts = 0;
  let non2xx = 0;
  const warmupMs = (options.warmupSeconds ?? 0) * 1000;
  const warmupLatencies: number[] = [];
  const total = rate
    ? Math.round(rate * ((options.warmupSeconds ?? 0) + options.durationSeconds))
    : (options.amount ?? Number.POSITIVE_INFINITY);
  const connections = Array.from(
    { length: options.connections },
    () => new SocketConnection(options.port, REQUEST_TIMEOUT_MS),
  );
  const startedAt = performance.now();
  const startedAtEpoch = Date.now();
  const endsAt = startedAt + options.durationSeconds * 1000;
  let taken = 0;

  /** The next request due, or undefined: none yet (open loop) or the run is over. */
  const nextDue = (now: number): { due: number; dueEpoch: number } | undefined => {
    if (taken >= total) return undefined;
    if (!rate) return now < endsAt || options.amount ? { due: now, dueEpoch: Date.now() } : undefined;
    const due = startedAt + (taken * 1000) / rate;
    // The device's clock when the message was due, in whole ms: one source's messages stay
    // exactly sources / rate apart.
    return due <= now ? { due, dueEpoch: startedAtEpoch + Math.floor((taken * 1000) / rate) } : undefined;
  };
  const over = () => taken >= total || (!rate && !options.amount && performance.now() >= endsAt);

  const idle = [...connections];
  let pending = 0;
  let finished: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const send = (connection: SocketConnection, slot: { due: number; dueEpoch: number }) => {
    taken += 1;
    pending += 1;
    const { id, message } = traffic.take(slot.dueEpoch);
    connection
      .post(message.path, message.body)
      .then((answer) => {
        const latency = performance.now() - slot.due;
        (slot.due - startedAt < warmupMs ? warmupLatencies : latencies).push(latency);
        if (options.keepSamples) {
          sampleDue.push(slot.dueEpoch);
          sampleLatency.push(latency);
        }
        if (answer.status < 200 || answer.status >= 300) non2xx += 1;
        traffic.answered(id, answer.status, answer.body);
      })
      .catch((error: unknown) => {
        if (error instanceof TimeoutError) timeouts += 1;
        else errors += 1;
      })
      .finally(() => {
        pending -= 1;
        idle.push(connection);
        dispatch();
      });
  };
  // Requests due while every connection is busy wait for the next free one, their latency running.
  const dispatch = () => {
    const now = performance.now();
    while (idle.length > 0) {
      const slot = nextDue(now);
      if (!slot) break;
      send(idle.pop()!, slot);
    }
    if (over() && pending === 0) finished();
  };
  // Open loop: one clock for the schedule, whatever the connections are doing.
  const clock = rate ? setInterval(dispatch, 1) : undefined;
  dispatch();
  await done;
  clearInterval(clock);
  for (const connection of connections) connection.close();

  latencies.sort((a, b) => a - b);
  warmupLatencies.sort((a, b) => a - b);
  const at = (p: number) => percentile(latencies, p, 0);
  const answered = latencies.length + warmupLatencies.length;
  const seconds = (performance.now() - startedAt) / 1000;
  return traffic.result('sockets', seconds, {
    // Over the whole run, the tail included: a server slower than the rate answers less than it.
    requestsPerSecond: answered / seconds,
    latency: {
      p50: round2(at(50)),
      p90: round2(at(90)),
      p99: round2(at(99)),
      max: round2(latencies.at(-1) ?? 0),
      mean: round2(latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length)),
    },
    warmupLatency:
      warmupMs > 0
        ? {
            seconds: warmupMs / 1000,
            p50: round2(percentile(warmupLatencies, 50, 0)),
            p99: round2(percentile(warmupLatencies, 99, 0)),
          }
        : undefined,
    errors,
    timeouts,
    non2xx,
    samples: options.keepSamples ? sampleDue.map((due, i) => [due, sampleLatency[i]]) : undefined,
  });
}

const REQUEST_TIMEOUT_MS = 10_000;
const STORED_ANSWER = JSON.stringify({ message: 'Data accepted', stored: true });

const round2 = (value: number) => Math.round(value * 100) / 100;

function classify(status: number, body: string): WebhookOutcome {
  if (status === 200) {
    if (body === STORED_ANSWER) return 'stored';
    try {
      const parsed = JSON.parse(body) as { stored?: unknown; reason?: unknown };
      if (parsed.stored === true) return 'stored';
      if (parsed.stored === false && parsed.reason === 'throttled') return 'throttled';
    } catch {
      // not the webhook's answer
    }
    return 'otherStatus';
  }
  if (status === 409) return 'duplicate';
  if (status === 400) return 'rejected';
  if (status === 429) return 'overBudget';
  if (status === 404) return 'notFound';
  if (status === 503) return 'unavailable';
  return 'otherStatus';
}
