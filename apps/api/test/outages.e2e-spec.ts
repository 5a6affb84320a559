import { INestApplication } from '@nestjs/common';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import Redis from 'ioredis';
import { Client } from 'pg';
import request from 'supertest';
import { BACKEND_UNAVAILABLE_MESSAGE } from '@solar/platform';
import { NOT_STORED } from '@solar/telemetry';
import {
  createTestEnvironment,
  createWebhookSource,
  freePort,
  logIn,
  signUp,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { startApi } from './support/api-harness';

/** Clients looping requests at once, as a modest production load. */
const CLIENTS = 20;
const SOURCES = 5;
const RETRY_AFTER = '5';

type Phase = 'before' | 'down' | 'after';
type Route = 'read' | 'webhook';

interface Answer {
  route: Route;
  /** When the request was sent. */
  phase: Phase;
  /** When its answer came. */
  answered?: Phase;
  status: number;
  body: unknown;
  retryAfter: string | null;
  /** What a webhook post sent, to find its row. */
  sent?: { sourceId: string; ts: string };
}

/** Resolves once something accepts TCP connections on `port`. */
async function untilListening(port: number): Promise<void> {
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => resolve(true));
        socket.once('error', () => resolve(false));
      }).then((up) => up),
    `something to listen on port ${port}`,
    5000,
  );
}

/** A Redis of this test's own, without persistence: a restart empties it. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await untilListening(port);
  return child;
}

async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** A TCP proxy to PostgreSQL that the test can cut (every connection dropped, none accepted) and reopen. */
class TcpProxy {
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly targetPort: number) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const [socket, other] of [
        [client, upstream],
        [upstream, client],
      ]) {
        this.sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => {
          this.sockets.delete(socket);
          other.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = once(server, 'close');
    server.close();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/**
 * The errors ioredis reports on a client that has no error listener: it would print each as
 * "[ioredis] Unhandled error event" through console.error. Under Jest it prints nothing for
 * Node's socket errors (its `instanceof Error` fails across Jest's realms), so the test looks
 * at the listeners itself, in ioredis 5's private `silentEmit`: check on upgrade.
 */
function watchUnheardRedisErrors(): { unheard: string[]; restore: () => void } {
  const unheard: string[] = [];
  interface Emitting {
    status: string;
    manuallyClosing?: boolean;
    listenerCount(event: string): number;
    silentEmit(event: string, arg?: unknown): unknown;
  }
  const prototype = Redis.prototype as unknown as Emitting;
  const original = prototype.silentEmit;
  const spy = jest.spyOn(prototype, 'silentEmit').mockImplementation(function (this: Emitting, event, arg) {
    // As ioredis: a closed or closing client's errors are dropped, not printed.
    if (
      event === 'error' &&
      this.status !== 'end' &&
      !this.manuallyClosing &&
      this.listenerCount('error') === 0
    )
      unheard.push(String((arg as Error | undefined)?.message));
    return original.call(this, event, arg);
  });
  return { unheard, restore: () => spy.mockRestore() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('while Redis or PostgreSQL is down (every request 503 { message }, never 500)', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let base: string;
  let redisPort: number;
  let redis: ChildProcess;
  let proxy: TcpProxy;
  let db: Client;
  let email: string;
  let cookie: string;
  let sources: Array<{ id: string; secret: string }>;
  let unheardRedisErrors: ReturnType<typeof watchUnheardRedisErrors>;
  /** Device time of the next webhook post: 20 s apart, so that the throttle keeps every one. */
  let nextTs = Date.now() - 3 * 24 * 3600_000;
  let reads = 0;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    env = await createTestEnvironment({ COSTLY_RATE_LIMIT_PER_USER: '1000000' });
    const databaseUrl = new URL(env.config.databaseUrl);
    proxy = new TcpProxy(Number(databaseUrl.port || 5432));
    await proxy.open();
    databaseUrl.hostname = '127.0.0.1';
    databaseUrl.port = String(proxy.port);
    unheardRedisErrors = watchUnheardRedisErrors();
    ({ app } = await startApi(
      env.configWith({ REDIS_URL: `redis://127.0.0.1:${redisPort}`, DATABASE_URL: databaseUrl.toString() }),
    ));
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    const http = request(app.getHttpServer());
    ({ email, cookie } = await signUp(http, env.mail));
    sources = [];
    for (let i = 0; i < SOURCES; i += 1) sources.push(await createWebhookSource(http, cookie));
  });

  afterAll(async () => {
    unheardRedisErrors?.restore();
    await app?.close();
    await db?.end();
    await proxy?.cut();
    if (redis) await killRedis(redis);
    await env?.teardown();
  });

  async function send(route: Route, phase: Phase, client: number): Promise<Answer> {
    let response: Response;
    let sent: Answer['sent'];
    if (route === 'read') {
      // A list through TypeORM's pool; a summary through the pool of statements planned once; a
      // count behind the per-user rate limit, which asks Redis on every request (the others may
      // be answered from the session and source caches alone while Redis is away).
      const paths = [
        '/api/sunsources',
        `/api/sunsourcemetrics/${sources[0].id}/daily-summary`,
        `/api/sunsourcedata/count/${sources[0].id}`,
      ];
      const path = paths[(reads += 1) % paths.length];
      response = await fetch(`${base}${path}`, {
        headers: { cookie },
        signal: AbortSignal.timeout(15_000),
      });
    } else {
      const source = sources[client % SOURCES];
      nextTs += 20_000;
      sent = { sourceId: source.id, ts: new Date(nextTs).toISOString() };
      response = await fetch(`${base}/api/webhook/sunsource/${source.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: source.secret, timestamp: sent.ts, soc: 50 }),
        signal: AbortSignal.timeout(15_000),
      });
    }
    const text = await response.text();
    return {
      route,
      phase,
      status: response.status,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      retryAfter: response.headers.get('retry-after'),
      sent,
    };
  }

  /**
   * `CLIENTS` clients, each alternating an authenticated read and a webhook post, from now until
   * `script` has run; what the api answered, with the phase each request was sent in.
   */
  async function underLoad(
    script: (setPhase: (phase: Phase) => void, answers: readonly Answer[]) => Promise<void>,
  ): Promise<Answer[]> {
    const answers: Answer[] = [];
    const served = (route: Route) => answers.filter((a) => a.route === route && a.status === 200).length;
    let phase: Phase = 'before';
    let running = true;
    const loops = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = client; running; n += 1) {
        const answer = await send(n % 2 === 0 ? 'read' : 'webhook', phase, client);
        answers.push({ ...answer, answered: phase });
      }
    });
    // Under way first: both routes answered a round of requests each.
    await waitFor(
      () => served('read') >= CLIENTS / 2 && served('webhook') >= CLIENTS / 2,
      'the load',
      10_000,
    );
    await script((next) => (phase = next), answers);
    running = false;
    await Promise.all(loops);
    return answers;
  }

  /**
   * Keeps an outage on for at least `ms`, then until each of `routes` has answered a request sent
   * during it (at most 20 s): on a busy machine the requests in flight when it began can take all
   * of `ms` to come back, and none would be sent in the outage. `tick` runs between checks.
   */
  async function holdOutage(
    answers: readonly Answer[],
    routes: Route[],
    ms: number,
    tick: () => Promise<unknown> = () => pause(200),
  ): Promise<void> {
    const start = Date.now();
    const felt = () => routes.every((route) => answers.some((a) => a.route === route && a.phase === 'down'));
    while ((Date.now() - start < ms || !felt()) && Date.now() - start < 20_000) await tick();
  }

  const health = async () => {
    const response = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: (await response.json()) as { checks: Record<string, string> } };
  };

  /** What the rows hold of what the webhook answered 200 "stored" for. */
  async function lostOf(answers: Answer[]): Promise<Answer['sent'][]> {
    const accepted = answers.filter(
      (answer) => answer.route === 'webhook' && answer.status === 200 && answer.sent,
    );
    const { rows } = await db.query<{ id: string; ts: Date }>(
      'SELECT sun_source_id AS id, ts FROM telemetry WHERE sun_source_id = ANY($1)',
      [sources.map((source) => source.id)],
    );
    const stored = new Set(rows.map((row) => `${row.id} ${row.ts.toISOString()}`));
    return accepted
      .map((answer) => answer.sent)
      .filter((sent) => !stored.has(`${sent!.sourceId} ${sent!.ts}`));
  }

  /** Every 503 says why in `{ message }` and when to retry. */
  function expectOutageAnswers(answers: Answer[]): void {
    const unavailable = answers.filter((answer) => answer.status === 503);
    const messages = new Set(unavailable.map((answer) => JSON.stringify(answer.body)));
    const allowed = [BACKEND_UNAVAILABLE_MESSAGE, NOT_STORED].map((message) => JSON.stringify({ message }));
    expect([...messages].filter((message) => !allowed.includes(message))).toEqual([]);
    expect(unavailable.filter((answer) => answer.retryAfter !== RETRY_AFTER)).toEqual([]);
  }

  it('Redis killed and restarted under load: 200 or 503, never 500; nothing accepted lost; health recovers', async () => {
    const healthDuringOutage: Array<{ status: number; body: unknown }> = [];
    const answers = await underLoad(async (setPhase, sofar) => {
      setPhase('down');
      await killRedis(redis);
      await holdOutage(sofar, ['webhook'], 2000, async () => {
        healthDuringOutage.push(await health());
        await pause(200);
      });
      redis = await startRedis(redisPort);
      setPhase('after');
      await pause(1500);
    });

    const statuses = (route: Route, phase: Phase) =>
      [...new Set(answers.filter((a) => a.route === route && a.phase === phase).map((a) => a.status))].sort();
    // Without persistence the restarted Redis has no sessions: a read answered once it is back
    // (even one sent before the kill and held meanwhile) is rightly refused as not logged in.
    // Before the outage all was well.
    expect(statuses('read', 'before')).toContain(200);
    expect(statuses('webhook', 'before')).toContain(200);
    expect(answers.filter((a) => a.answered === 'before' && a.status === 401)).toEqual([]);
    const allowedRead = [200, 401, 503];
    expect(answers.filter((a) => a.route === 'read' && !allowedRead.includes(a.status))).toEqual([]);
    expect(answers.filter((a) => a.route === 'webhook' && ![200, 503].includes(a.status))).toEqual([]);
    // The outage was felt. Each message asks Redis (its windows), so some webhook post fails
    // while Redis is away; a read may be held by the Redis client until Redis is back (then 401:
    // the sessions went with it), so reads only must never be 500.
    expect(statuses('webhook', 'down')).toContain(503);
    expectOutageAnswers(answers);
    expect(await lostOf(answers)).toEqual([]);

    expect(healthDuringOutage.map((h) => h.status)).toContain(503);
    expect(healthDuringOutage.find((h) => h.status === 503)?.body).toMatchObject({
      status: 'error',
      checks: { redis: 'down' },
    });
    await waitFor(async () => (await health()).status === 200, 'health to answer 200', 5000);
    // A session made now lives in the new Redis.
    cookie = await logIn(request(app.getHttpServer()), email);
    expect((await send('read', 'after', 0)).status).toBe(200);

    // Every client heard its errors: none was left for ioredis to print as unhandled.
    expect(unheardRedisErrors.unheard).toEqual([]);
  });

  it('PostgreSQL cut while its connections are idle: the process lives on and answers again', async () => {
    cookie = await logIn(request(app.getHttpServer()), email);
    const summary = () => send('read', 'before', 0);
    reads = 1; // the next read is the summary, planned once on a pool of its own
    expect((await summary()).status).toBe(200);
    await proxy.cut();
    await pause(300);
    await proxy.open();
    reads = 1;
    expect((await summary()).status).toBe(200);
  });

  it('PostgreSQL cut under load: reads and the webhook answer 503 { message }, then recover', async () => {
    cookie = await logIn(request(app.getHttpServer()), email);
    const answers = await underLoad(async (setPhase, sofar) => {
      setPhase('down');
      await proxy.cut();
      await holdOutage(sofar, ['read', 'webhook'], 1000);
      expect(await health()).toEqual({
        status: 503,
        body: { status: 'error', checks: expect.objectContaining({ database: 'down' }) },
      });
      await proxy.open();
      setPhase('after');
      await waitFor(async () => (await health()).status === 200, 'health to answer 200', 5000);
      await pause(500);
    });

    expect(answers.filter((a) => ![200, 503].includes(a.status))).toEqual([]);
    const down = answers.filter((a) => a.phase === 'down');
    expect([...new Set(down.filter((a) => a.route === 'read').map((a) => a.status))]).toContain(503);
    expect([...new Set(down.filter((a) => a.route === 'webhook').map((a) => a.status))]).toContain(503);
    expectOutageAnswers(answers);
    expect(await lostOf(answers)).toEqual([]);
    // Back: the last round of requests, sent once PostgreSQL was reachable again, all succeeded.
    const last = answers.filter((a) => a.phase === 'after').slice(-CLIENTS);
    expect(last.map((a) => a.status)).toEqual(last.map(() => 200));
  });
});
