import { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CLEANUP_BATCH_SIZE } from '@solar/domain';
import { createTestEnvironment, FakeClock, TestEnvironment } from '@solar/testing';
import { createSchedulerApp } from '../src/create-scheduler-app';
import { JobRunner } from '../src/jobs/job-runner';

const NOW = new Date('2026-06-07T10:15:00Z');
const HOUR = 3_600_000;
const MAX_AGE_HOURS = 168;

describe('removal of unverified accounts (UNVERIFIED_ACCOUNT_MAX_AGE_HOURS)', () => {
  let env: TestEnvironment;
  let db: Client;
  let scheduler: INestApplication;
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    env = await createTestEnvironment({ UNVERIFIED_ACCOUNT_MAX_AGE_HOURS: String(MAX_AGE_HOURS) });
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    scheduler = await createSchedulerApp(env.config, { clock });
  });

  afterAll(async () => {
    await scheduler.close();
    await db.end();
    await env.teardown();
  });

  /** An account created `ageHours` before NOW; `codeValidFor` hours of a code left at NOW. */
  async function account(ageHours: number, verified: boolean, codeValidFor?: number): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, password_hash, email_verified, created_at, verification_code_hash, verification_code_expires_at)
       VALUES ($1, $2, 'x', $3, $4, $5, $6)`,
      [
        id,
        `${id}@example.com`,
        verified,
        new Date(NOW.getTime() - ageHours * HOUR),
        codeValidFor === undefined ? null : 'h',
        codeValidFor === undefined ? null : new Date(NOW.getTime() + codeValidFor * HOUR),
      ],
    );
    return id;
  }

  const existing = async (ids: string[]) =>
    (await db.query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1::uuid[])', [ids])).rows
      .map((row) => row.id)
      .sort();

  it('runs hourly at a quarter past, in UTC', () => {
    const cron = scheduler.get(SchedulerRegistry).getCronJob('unverified-accounts');
    expect(String(cron.cronTime.source)).toBe('15 * * * *');
    expect(cron.cronTime.timeZone).toBe('UTC');
  });

  it('removes unverified accounts older than the age; keeps younger, verified and mid-verification ones', async () => {
    const old = await account(MAX_AGE_HOURS + 1, false);
    const expiredCode = await account(MAX_AGE_HOURS + 1, false, -1);
    const young = await account(MAX_AGE_HOURS - 1, false);
    const verified = await account(MAX_AGE_HOURS * 10, true);
    const codePending = await account(MAX_AGE_HOURS + 1, false, 0.1);

    const report = await scheduler.get(JobRunner).run('unverified-accounts', NOW);
    expect(report).toMatchObject({ status: 'completed', counts: { accountsRemoved: 2 } });
    expect(await existing([old, expiredCode, young, verified, codePending])).toEqual(
      [young, verified, codePending].sort(),
    );
  });

  it('removes more than one batch in one run', async () => {
    const count = CLEANUP_BATCH_SIZE * 2 + 3;
    await db.query(
      `INSERT INTO users (email, password_hash, email_verified, created_at)
       SELECT 'bulk-' || n || '-' || $1 || '@example.com', 'x', false, $2
         FROM generate_series(1, $3) AS n`,
      [randomUUID(), new Date(NOW.getTime() - (MAX_AGE_HOURS + 2) * HOUR), count],
    );
    const report = await scheduler.get(JobRunner).run('unverified-accounts');
    expect(report).toMatchObject({ status: 'completed', counts: { accountsRemoved: count } });
    const left = await db.query(`SELECT count(*)::int AS n FROM users WHERE email LIKE 'bulk-%'`);
    expect(left.rows[0].n).toBe(0);
  });
});
