import Redis from 'ioredis';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Child, databaseUrl, dropDatabases, stopChild, TEST_REDIS_URL } from '@solar/testing';
import { DeployedApp, deployedEnvironment } from './deployment';
import { round } from './processes';

const started = performance.now();

/** Whole seconds since the bench started. */
function runSeconds(): number {
  return round((performance.now() - started) / 1000);
}

/** A progress line: UTC wall-clock time and seconds since the bench started. */
export function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)} +${runSeconds()}s] ${message}`);
}

export interface RunResourcesOptions {
  /** The bench's name in what it creates: `solar_bench_<label>_…`, `bench:<label>:…`. */
  label: string;
  /** An existing database to run on instead of a new one (an earlier run's, kept). */
  database?: string;
  /** Leave the database in place at the end, and say how to reuse it. */
  keepDatabase?: boolean;
  /** The checkout whose built apps the run starts; the repository by default. */
  appRoot?: string;
  /**
   * Lets go of what the bench holds itself (worker threads, its own database connections, HTTP
   * agents), first: before the apps stop and the database is dropped under it.
   */
  release?: () => unknown;
}

/**
 * What one benchmark run creates (a database, a Redis key prefix, a data directory, the apps it
 * starts) and their removal, once, on whichever comes first: the end, a failure, the watchdog or
 * Ctrl-C (SIGINT, SIGTERM).
 */
export class RunResources {
  readonly stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  readonly databaseName: string;
  readonly redisPrefix: string;
  readonly dataDir: string;
  /** The apps the bench started: stopped at cleanup, their last lines printed on failure. */
  readonly children: Child[] = [];
  private cleaning: Promise<void> | undefined;
  private readonly profileStarts = new Map<string, number>();
  private compileCache: Record<string, string> | undefined;

  constructor(private readonly options: RunResourcesOptions) {
    const { label } = options;
    this.databaseName = options.database ?? `solar_bench_${label}_${this.stamp}_${process.pid}`;
    this.redisPrefix = `bench:${label}:${this.stamp}:${process.pid}:`;
    this.dataDir = mkdtempSync(join(tmpdir(), `solar-bench-${label}-`));
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.cleaning) return console.error(`${signal}: already cleaning up, please wait`);
        console.error(`\n${signal}: stopping the apps and removing what the benchmark created…`);
        void this.cleanup().finally(() => process.exit(130));
      });
    }
  }

  /**
   * Node's flags for a V8 CPU profile of app `name` in `dir`; none without a `dir`. Each start
   * of an app gets its own file (`api-<stamp>-2.cpuprofile` is the api's second start).
   */
  profileArgs(name: string, dir: string | undefined): string[] {
    if (!dir) return [];
    const start = (this.profileStarts.get(name) ?? 0) + 1;
    this.profileStarts.set(name, start);
    return [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      `--cpu-prof-name=${name}-${this.stamp}-${start}.cpuprofile`,
    ];
  }

  /**
   * The environment every app of the run starts with: the run's database, Redis prefix and data
   * directory, fresh secrets (`secretsKey` as given: the bench seals credentials with it too),
   * the api on `apiPort`, warnings only, and the V8 options `app` is deployed with (the api's
   * and the ingestor's are the image's, the same), with the image's compile cache.
   */
  appEnvironment(apiPort: number, secretsKey: string, app: DeployedApp = 'api'): Record<string, string> {
    const deployed = deployedEnvironment(app);
    return {
      DATABASE_URL: databaseUrl(this.databaseName),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: this.redisPrefix,
      DATA_DIR: this.dataDir,
      INTERNAL_API_KEY: randomBytes(32).toString('hex'),
      SESSION_SECRET: randomBytes(32).toString('hex'),
      SECRETS_KEY: secretsKey,
      COOKIE_SECURE: 'false',
      PORT: String(apiPort),
      // The api's metrics listener on a port of its own choosing: never one another run holds.
      API_METRICS_PORT: '0',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: deployed.NODE_OPTIONS ?? '',
      ...(deployed.NODE_COMPILE_CACHE !== undefined ? this.warmCompileCache() : {}),
    };
  }

  /**
   * `NODE_COMPILE_CACHE` for the apps, as the image gives them: a cache in the data directory,
   * filled once per run by the script the image's build runs, with the Node the apps run on.
   * Empty where that Node has no compile cache, or the apps' checkout predates the script.
   */
  private warmCompileCache(): Record<string, string> {
    if (!this.compileCache) {
      const directory = join(this.dataDir, 'compile-cache');
      const appRoot = this.options.appRoot ?? join(__dirname, '..', '..');
      const script = join(appRoot, 'scripts', 'warm-compile-cache.js');
      if (!existsSync(script)) {
        log(`no compile cache: ${appRoot} has no scripts/warm-compile-cache.js`);
        return (this.compileCache = {});
      }
      const said = execFileSync(process.execPath, [script], {
        cwd: appRoot,
        env: { ...process.env, NODE_OPTIONS: '', NODE_COMPILE_CACHE: directory },
        encoding: 'utf8',
      });
      log(said.trim());
      this.compileCache = said.startsWith('compile cache:') ? { NODE_COMPILE_CACHE: directory } : {};
    }
    return this.compileCache;
  }

  get cleaningUp(): boolean {
    return this.cleaning !== undefined;
  }

  /**
   * Runs the bench's `main`, giving up after `watchdogMs`. On failure prints the error and the
   * apps' last lines; then, whatever happened, removes what the run created and exits.
   */
  async execute(main: () => Promise<void>, watchdogMs: number): Promise<void> {
    const watchdog = setTimeout(() => {
      console.error(`the benchmark ran over ${watchdogMs / 60_000} minutes: giving up`);
      void this.cleanup().finally(() => process.exit(1));
    }, watchdogMs);
    watchdog.unref();
    try {
      await main();
    } catch (error) {
      console.error('benchmark failed:', error);
      for (const child of this.children) {
        if (child.tail.length > 0)
          console.error(`--- last lines of ${child.name}:\n${child.tail.slice(-15).join('\n')}`);
      }
      process.exitCode = 1;
    }
    const database = this.options.keepDatabase ? '' : 'dropping the database, ';
    log(`cleaning up: stopping the apps, ${database}deleting the Redis keys and the data directory…`);
    await this.cleanup();
    log(`total ${runSeconds()} s`);
    process.exit(process.exitCode ?? 0);
  }

  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      await Promise.resolve()
        .then(this.options.release)
        .catch((error: unknown) =>
          console.error(`could not release the bench's own resources: ${String(error)}`),
        );
      await Promise.all(this.children.map((child) => stopChild(child, 15_000).catch(() => undefined)));
      if (this.options.keepDatabase) {
        log(
          `database ${this.databaseName} kept: reuse it with --database ${this.databaseName}, drop it with DROP DATABASE`,
        );
      } else {
        await dropDatabases([this.databaseName]).catch((error: unknown) =>
          console.error(`could not drop database ${this.databaseName}: ${String(error)}`),
        );
      }
      await this.deleteRedisKeys().catch((error: unknown) =>
        console.error(`could not delete Redis keys ${this.redisPrefix}*: ${String(error)}`),
      );
      rmSync(this.dataDir, { recursive: true, force: true });
    })();
    return this.cleaning;
  }

  private async deleteRedisKeys(): Promise<void> {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
    try {
      let cursor = '0';
      let rounds = 0;
      // Bounded, so that a Redis that keeps answering with a cursor cannot hold the cleanup forever.
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.redisPrefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
        rounds += 1;
      } while (cursor !== '0' && rounds < 100_000);
    } finally {
      redis.disconnect();
    }
  }
}
