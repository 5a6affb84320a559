import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '@solar/database';
import {
  createRedisPrefix,
  insertSpecUser,
  openSpecDatabase,
  SpecDatabase,
  TEST_REDIS_URL,
  testConfig,
  waitFor,
} from '@solar/testing';
import { SourceAccessCache } from './source-access-cache';
import { SourceAccess, SunSourceRepository } from './sun-source.repository';
import { SunSourceEntity } from './sun-source.entity';

/** The repository as the app has it, counting the batched reads and able to hold them. */
class CountingRepository extends SunSourceRepository {
  readonly batches: number[] = [];
  hold: Promise<void> = Promise.resolve();

  override async findAccessMany(ids: readonly string[]): Promise<SourceAccess[]> {
    this.batches.push(ids.length);
    const found = await super.findAccessMany(ids);
    await this.hold;
    return found;
  }
}

/**
 * A fleet arriving cold: every device's first message asks for its source. The misses of a
 * moment are read together, and a source changed while it is being read is not kept as it was.
 */
describe('SourceAccessCache, against PostgreSQL and Redis', () => {
  const { prefix, cleanup } = createRedisPrefix();
  let database: SpecDatabase;
  let db: Client;
  let dataSource: DataSource;
  let redis: Redis;
  let repository: CountingRepository;
  let cache: SourceAccessCache;
  let userId: string;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    database = await openSpecDatabase();
    ({ db, dataSource } = database);
    redis = new Redis(TEST_REDIS_URL);
    userId = await insertSpecUser(db);
  });

  beforeEach(() => {
    repository = new CountingRepository(
      dataSource.getRepository(SunSourceEntity),
      dataSource,
      new PreparedQueries(dataSource),
    );
    cache = new SourceAccessCache(
      repository,
      redis,
      testConfig({ DATABASE_URL: 'postgres://unused', REDIS_KEY_PREFIX: prefix }),
    );
  });

  afterEach(async () => {
    await cache.onApplicationShutdown();
  });

  afterAll(async () => {
    await database?.close();
    redis?.disconnect();
    await cleanup();
  });

  async function insertSources(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, is_active, webhook_secret_encrypted)
       SELECT id, $2, 'Fleet ' || id, 'Webhook', true, 'sealed-' || id FROM unnest($1::uuid[]) AS id`,
      [ids, userId],
    );
    return ids;
  }

  /** Nothing is cached until the subscription is in place: reads `id` until it comes from memory. */
  async function untilCached(id: string): Promise<void> {
    await waitFor(
      async () => {
        await cache.lookup(id);
        const before = repository.batches.length;
        await cache.lookup(id);
        return repository.batches.length === before;
      },
      'the cache to keep what it reads',
      2000,
    );
  }

  it('answers 500 cold sources at once with one query, each its own source or null', async () => {
    const known = await insertSources(450);
    const unknown = Array.from({ length: 48 }, () => randomUUID());
    const asked = [...known, ...unknown, 'not-a-uuid', known[0].toUpperCase()];

    const answers = await Promise.all(asked.map((id) => cache.lookup(id)));

    // 498 distinct sources: the upper-case id is the first's, and 'not-a-uuid' is none.
    expect(repository.batches).toEqual([498]);
    expect(
      answers.slice(0, 450).map((source) => [source?.id, source?.name, source?.webhookSecretEncrypted]),
    ).toEqual(known.map((id) => [id, `Fleet ${id}`, `sealed-${id}`]));
    expect(answers.slice(0, 450).every((source) => source?.userId === userId && source.isActive)).toBe(true);
    expect(answers.slice(450)).toEqual([...unknown.map(() => null), null, answers[0]]);
  });

  it('keeps no stale copy of a source changed while its batched read is in flight', async () => {
    const [warm, changed, unchanged] = await insertSources(3);
    await untilCached(warm);
    let release!: () => void;
    repository.hold = new Promise((resolve) => (release = resolve));
    const readsBefore = repository.batches.length;

    const pending = Promise.all([cache.lookup(changed), cache.lookup(unchanged)]);
    await waitFor(async () => repository.batches.length > readsBefore, 'the batch to be read', 2000);
    // As SunSourcesService does: the change is committed, then announced.
    await db.query('UPDATE sun_sources SET is_active = false WHERE id = $1', [changed]);
    await cache.forget(changed);
    release();

    const [before, neighbour] = await pending;
    expect([before?.isActive, neighbour?.isActive]).toEqual([true, true]);
    repository.hold = Promise.resolve();
    expect((await cache.lookup(changed))?.isActive).toBe(false);
    expect((await cache.lookup(unchanged))?.isActive).toBe(true);
    // The changed source was read again, once; its neighbour came from memory.
    expect(repository.batches.slice(readsBefore)).toEqual([2, 1]);
  });
});
