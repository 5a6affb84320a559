import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import {
  AppProcess,
  buildAppsOnce,
  createRedisPrefix,
  createWebhookSource,
  databaseUrl,
  dropDatabases,
  freePort,
  logIn,
  startAppProcess,
  TEST_REDIS_URL,
  testDataDir,
  waitFor,
} from '@solar/testing';

/**
 * The operations contract on the built apps, run as real processes: each creates
 * its database if missing, migrates, logs `ready`, answers `GET /api/health` and exits 0 on SIGTERM.
 */
const root = join(__dirname, '..');
const MAIN = {
  api: 'dist/apps/api/src/main.js',
  ingestor: 'dist/apps/ingestor/src/main.js',
  scheduler: 'dist/apps/scheduler/src/main.js',
} as const;
type AppName = keyof typeof MAIN;

interface RunningApp extends AppProcess {
  name: AppName;
}

function startApp(name: AppName, env: Record<string, string>): RunningApp {
  return { name, ...startAppProcess(root, [MAIN[name]], env) };
}

function logged(app: RunningApp, message: string): boolean {
  return app.lines.some((line) => {
    try {
      return (JSON.parse(line) as { msg?: string }).msg === message;
    } catch {
      return false;
    }
  });
}

async function health(port: number): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}/api/health`);
  return { status: response.status, body: await response.json() };
}

async function stop(app: RunningApp): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (app.process.exitCode === null) app.process.kill('SIGTERM');
  return app.exited;
}

describe('the three apps as processes', () => {
  const databases: string[] = [];
  const redisPrefixes: ReturnType<typeof createRedisPrefix>[] = [];
  const running: RunningApp[] = [];
  const secrets = {
    INTERNAL_API_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
  };

  function baseEnv(database: string): Record<string, string> {
    const redis = createRedisPrefix();
    redisPrefixes.push(redis);
    return {
      ...secrets,
      DATABASE_URL: databaseUrl(database),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redis.prefix,
      DATA_DIR: testDataDir(),
      COOKIE_SECURE: 'false',
      LOG_LEVEL: 'info',
      API_METRICS_PORT: '0',
    };
  }

  function freshDatabaseName(): string {
    const name = `solar_test_${process.env.SOLAR_TEST_RUN_ID}_fresh_${randomBytes(3).toString('hex')}`;
    databases.push(name);
    return name;
  }

  beforeAll(() => buildAppsOnce(root), 200_000);

  afterEach(async () => {
    await Promise.all(running.splice(0).map((app) => stop(app)));
  });

  afterAll(async () => {
    await dropDatabases(databases);
    await Promise.all(redisPrefixes.map((redis) => redis.cleanup()));
  });

  it('start together on a database that does not exist yet, get ready, answer health and exit 0 on SIGTERM', async () => {
    const database = freshDatabaseName();
    const [apiPort, ingestorPort, schedulerPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = {
      ...baseEnv(database),
      PORT: String(apiPort),
      INGESTOR_PORT: String(ingestorPort),
      SCHEDULER_PORT: String(schedulerPort),
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'Bootstrap-Secret-99',
    };
    const apps = (['api', 'ingestor', 'scheduler'] as const).map((name) => startApp(name, env));
    running.push(...apps);

    for (const app of apps) await waitFor(() => logged(app, 'ready'), `${app.name} ready`, 30_000);

    expect(await health(apiPort)).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'up', redis: 'up' } },
    });
    expect(await health(schedulerPort)).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'up', redis: 'up' } },
    });
    expect(await health(ingestorPort)).toEqual({
      status: 200,
      body: {
        status: 'ok',
        checks: {
          database: 'up',
          redis: 'up',
          broker: 'up',
          intake: { status: 'up', inFlight: 0, maxInFlight: 2000, paused: false },
        },
      },
    });

    // Devices' accepted messages are routine: counted by the metrics, logged at debug, whether
    // they come straight (no Origin) or through the controller (a browser's Origin). A refused
    // message and every other request are logged at info or above.
    const http = request(`http://127.0.0.1:${apiPort}`);
    const cookie = await logIn(http, env.ADMIN_EMAIL, env.ADMIN_PASSWORD);
    const source = await createWebhookSource(http, cookie);
    const message = { key: source.secret, pvPower: 1200 };
    await http.post(`/api/webhook/sunsource/${source.id}`).send(message).expect(200);
    await http
      .post(`/api/webhook/sunsource/${source.id}`)
      .set('Origin', 'https://devices.example.com')
      .send(message)
      .expect(200);
    const unknown = `/api/webhook/sunsource/${randomUUID()}`;
    await http.post(unknown).send(message).expect(404);

    // Three apps raced to migrate: each migration is recorded exactly once.
    const client = new Client({ connectionString: databaseUrl(database) });
    await client.connect();
    const recorded = (
      await client.query<{ n: number }>(
        'SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name',
      )
    ).rows;
    await client.end();
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.every((row) => row.n === 1)).toBe(true);

    for (const app of apps) {
      expect(await stop(app)).toEqual({ code: 0, signal: null });
      expect(logged(app, 'stopped')).toBe(true);
    }

    const requestLines = apps[0].lines
      .map((line) => JSON.parse(line) as { level: number; req?: { method: string; url: string } })
      .filter((line) => line.req !== undefined)
      .map((line) => [line.level, line.req!.method, line.req!.url]);
    expect(requestLines).toEqual([
      [30, 'POST', '/api/auth/login'],
      [30, 'POST', '/api/sunsources'],
      [40, 'POST', unknown],
    ]);

    // Structured JSON only, and no secret or password in any line.
    const everything = apps.flatMap((app) => app.lines);
    for (const line of everything) expect(() => JSON.parse(line)).not.toThrow();
    for (const secret of [...Object.values(secrets), env.ADMIN_PASSWORD]) {
      expect(everything.join('\n')).not.toContain(secret);
    }
  }, 60_000);

  it('the ingestor reports the broker down (503) while it cannot reach it, and is not ready', async () => {
    const database = freshDatabaseName();
    const port = await freePort();
    const closedPort = await freePort();
    const ingestor = startApp('ingestor', {
      ...baseEnv(database),
      INGESTOR_PORT: String(port),
      MQTT_URL: `mqtt://127.0.0.1:${closedPort}`,
    });
    running.push(ingestor);
    await waitFor(
      async () => (await health(port).catch(() => undefined)) !== undefined,
      'ingestor health',
      30_000,
    );
    expect(await health(port)).toEqual({
      status: 503,
      body: {
        status: 'error',
        checks: {
          database: 'up',
          redis: 'up',
          broker: 'down',
          intake: { status: 'up', inFlight: 0, maxInFlight: 2000, paused: false },
        },
      },
    });
    expect(logged(ingestor, 'ready')).toBe(false);
    expect(await stop(ingestor)).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('npm run migrate creates and migrates a database, then finds nothing to do', async () => {
    const database = freshDatabaseName();
    const env = { ...process.env, ...baseEnv(database) };
    const first = execFileSync('node', ['scripts/start.js', '--migrate'], { cwd: root, env }).toString();
    expect(first).toMatch(/^applied: CreateUsers\d+/m);
    const second = execFileSync('node', ['scripts/start.js', '--migrate'], { cwd: root, env }).toString();
    expect(second).toMatch(/database is up to date/);
  }, 60_000);
});
