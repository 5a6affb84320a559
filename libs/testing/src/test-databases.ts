import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

/** Server used by the tests; the default is the local PostgreSQL on 127.0.0.1:5432, user postgres, no password. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PREFIX = 'solar_test_';

export function databaseUrl(name: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export function templateName(runId: string): string {
  return `${PREFIX}tpl_${runId}`;
}

export function newRunId(): string {
  return `${Date.now().toString(36)}_${process.pid}`;
}

export async function withServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabases(names: string[]): Promise<void> {
  await withServer(async (client) => {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

/** Names of this run's databases, or of runs older than `olderThanMs` (crashed earlier runs). */
export async function listTestDatabases(filter: { runId?: string; olderThanMs?: number }): Promise<string[]> {
  return withServer(async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${PREFIX}%`],
    );
    return rows
      .map((row) => row.datname)
      .filter((name) => {
        const runId = /^solar_test_(?:tpl_)?([a-z0-9]+_\d+)/.exec(name)?.[1];
        if (!runId) return false;
        if (filter.runId) return runId === filter.runId;
        const startedAt = parseInt(runId.split('_')[0], 36);
        return filter.olderThanMs !== undefined && Date.now() - startedAt > filter.olderThanMs;
      });
  });
}

/**
 * A fresh, migrated database for one test file, cloned from the run's template in a few
 * hundred milliseconds. `drop` removes it.
 */
export async function createTestDatabase(): Promise<{
  url: string;
  name: string;
  drop: () => Promise<void>;
}> {
  const runId = process.env.SOLAR_TEST_RUN_ID;
  if (!runId) throw new Error('SOLAR_TEST_RUN_ID is unset: run the tests through jest (global setup)');
  const name = `${PREFIX}${runId}_${randomBytes(4).toString('hex')}`;
  await withServer((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName(runId)}"`));
  return { url: databaseUrl(name), name, drop: () => dropDatabases([name]) };
}
