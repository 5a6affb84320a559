import { connectAsync } from 'mqtt';
import { connect, createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '@solar/config';
import { Child, freePort, isRunning, startNode } from '@solar/testing';

const ROOT = join(__dirname, '..', '..', '..', '..');
const BOOT_TIMEOUT_MS = 60_000;
const OUTCOME_SUMMARY = 'mqtt telemetry summary';

/** The ingestor's health answer: the verdicts and, for the broker, how full its intake is. */
export interface IngestorHealth {
  status: number;
  inFlight?: number;
  maxInFlight?: number;
  paused?: boolean;
}

/**
 * The real ingestor as a child process (TypeScript run through the benchmark's require hook), so
 * that a test can SIGKILL it. `config` gives its database, Redis prefix and secrets; `env` the rest.
 */
export class IngestorProcess {
  private child: Child | undefined;
  private readonly runs: Child[] = [];

  private constructor(
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  static async create(config: AppConfig, env: Record<string, string>): Promise<IngestorProcess> {
    const port = await freePort();
    return new IngestorProcess(
      {
        DATABASE_URL: config.databaseUrl,
        DB_MIGRATE: 'false',
        REDIS_URL: config.redisUrl,
        REDIS_KEY_PREFIX: config.redisKeyPrefix,
        INTERNAL_API_KEY: config.internalApiKey,
        SESSION_SECRET: config.sessionSecret,
        SECRETS_KEY: config.secretsKey.toString('hex'),
        DATA_DIR: config.dataDir,
        LOG_LEVEL: 'warn',
        INGESTOR_PORT: String(port),
        ...env,
      },
      port,
    );
  }

  /** Starts it and resolves once its health check answers 200 (broker connected). */
  async start(): Promise<void> {
    this.child = startNode('ingestor', ['--require', './bench/register.js', 'apps/ingestor/src/main.ts'], {
      cwd: ROOT,
      env: this.env,
      keep: [OUTCOME_SUMMARY],
    });
    this.runs.push(this.child);
    const deadline = Date.now() + BOOT_TIMEOUT_MS;
    while ((await this.health()).status !== 200) {
      if (!isRunning(this.child) || Date.now() > deadline) {
        throw new Error(`the ingestor did not start:\n${this.child.tail.join('\n')}`);
      }
      await sleep(100);
    }
  }

  /**
   * How many messages it logged as stored, over all its runs: the consumer logs its counts every
   * minute and at shutdown (`LOG_LEVEL=info`), so a run ended by SIGKILL counts only its minutes.
   */
  storedCount(): number {
    return this.runs
      .flatMap((run) => run.kept)
      .reduce((sum, summary) => sum + (typeof summary.stored === 'number' ? summary.stored : 0), 0);
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !isRunning(child)) return;
    child.process.kill(signal);
    await child.exited;
  }

  async health(): Promise<IngestorHealth> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.port}/api/health`, {
        signal: AbortSignal.timeout(2000),
      });
      const body = (await response.json()) as {
        checks?: { intake?: Omit<IngestorHealth, 'status'> & { status: string } };
      };
      const { status: _intakeStatus, ...intake } = body.checks?.intake ?? { status: 'absent' };
      return { status: response.status, ...intake };
    } catch {
      return { status: 0 };
    }
  }
}

/**
 * Ends the session the broker at `url` keeps for `clientId` (an ingestor's, under a client id of
 * the test's own on the shared Mosquitto): a clean connect under that id, then a disconnect.
 */
export async function endKeptSession(url: string, clientId: string): Promise<void> {
  const session = await connectAsync(url, { clientId, clean: true });
  await session.endAsync();
}

/** A TCP proxy in front of PostgreSQL that a test can cut (connections dropped, new ones refused). */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<CuttableProxy> {
    const port = await freePort();
    const server = createServer();
    const proxy = new CuttableProxy(server, port);
    server.on('connection', (incoming: Socket) => proxy.accept(incoming, targetPort, targetHost));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return proxy;
  }

  /** Drops every connection and refuses new ones until `reopen`. */
  interrupt(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  reopen(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.interrupt();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(incoming: Socket, targetPort: number, targetHost: string): void {
    if (this.cut) {
      incoming.destroy();
      return;
    }
    const outgoing = connect(targetPort, targetHost);
    for (const [from, to] of [
      [incoming, outgoing],
      [outgoing, incoming],
    ]) {
      this.sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}
