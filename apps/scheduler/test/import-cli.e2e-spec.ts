import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createTestEnvironment, TestEnvironment } from '@solar/testing';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..');

/**
 * `npm run cli -- import`, run as its own process on the TypeScript sources (the bench's require
 * hook: the same code `npm run cli` runs once built) against the test database and Redis prefix.
 */
describe('npm run cli -- import', () => {
  let env: TestEnvironment;
  let db: Client;

  beforeAll(async () => {
    env = await createTestEnvironment();
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await env?.teardown();
  });

  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const { config } = env;
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['--require', './bench/register.js', 'apps/scheduler/src/cli.ts', ...args],
        {
          cwd: ROOT,
          timeout: 100_000,
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: config.databaseUrl,
            REDIS_URL: config.redisUrl,
            REDIS_KEY_PREFIX: config.redisKeyPrefix,
            DATA_DIR: config.dataDir,
            INTERNAL_API_KEY: config.internalApiKey,
            SESSION_SECRET: config.sessionSecret,
            SECRETS_KEY: config.secretsKey.toString('hex'),
          },
        },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  async function createSource(): Promise<string> {
    const userId = randomUUID();
    const sourceId = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, password_hash, roles, email_verified)
       VALUES ($1, $2, 'not-a-hash', ARRAY['User'], true)`,
      [userId, `${userId}@example.com`],
    );
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, is_active, webhook_secret_encrypted)
       VALUES ($1, $2, 'Imported', 'Webhook', true, 'sealed')`,
      [sourceId, userId],
    );
    return sourceId;
  }

  it('imports a file with local times through the importer, prints the report, and finds duplicates after', async () => {
    const id = await createSource();
    const file = join(env.config.dataDir, 'history.csv');
    writeFileSync(
      file,
      [
        'datetime,pv_power,battery_level',
        '2025-07-01 12:00:00,2500,60',
        '2025-07-01 12:00:04,2600,61',
        '2025-12-01 12:00:00,800,40',
        '2025-12-01 12:05:00,,',
      ].join('\n'),
    );
    const report = {
      rowsRead: 4,
      stored: 2,
      duplicate: 0,
      throttled: 1,
      rejected: 1,
      rejections: [{ line: 5, reason: 'No valid telemetry fields' }],
    };
    const first = await cli('import', id, file, '--time-zone', 'Europe/Berlin');
    expect({ code: first.code, report: JSON.parse(first.stdout) }).toEqual({ code: 0, report });
    const { rows } = await db.query<{ ts: Date }>(
      'SELECT ts FROM telemetry WHERE sun_source_id = $1 ORDER BY ts',
      [id],
    );
    expect(rows.map((row) => row.ts.toISOString())).toEqual([
      '2025-07-01T10:00:00.000Z',
      '2025-12-01T11:00:00.000Z',
    ]);

    const second = await cli('import', id, file, '--time-zone', 'Europe/Berlin');
    expect({ code: second.code, report: JSON.parse(second.stdout) }).toEqual({
      code: 0,
      report: { ...report, stored: 0, duplicate: 2 },
    });
  });

  it('says so and exits 1 for an unknown source, 2 for a wrong command line', async () => {
    const file = join(env.config.dataDir, 'one.csv');
    writeFileSync(file, 'timestamp,soc\n2025-07-01T00:00:00Z,50\n');
    const unknown = randomUUID();
    const missing = await cli('import', unknown, file);
    expect({ code: missing.code, stdout: missing.stdout }).toEqual({
      code: 1,
      stdout: `Sun source not found: ${unknown}\n`,
    });
    const usage = await cli('import', unknown);
    expect({ code: usage.code, stderr: usage.stderr }).toEqual({
      code: 2,
      stderr: 'usage: npm run cli -- import <sunSourceId> <file.csv> [--time-zone Europe/Berlin]\n',
    });
  });
});
