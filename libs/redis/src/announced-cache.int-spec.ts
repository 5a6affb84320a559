import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createRedisPrefix, lastReadUntil, TEST_REDIS_URL, waitFor } from '@solar/testing';
import { AnnouncedCache, AnnouncedCacheOptions } from './announced-cache';

/** Far longer than any test: an entry goes only when forgotten or evicted. */
const LONG_TTL_MS = 60_000;

/** A loader per key that counts its calls and answers `key#n`, so that each load is told apart. */
function countingLoader() {
  const calls = new Map<string, number>();
  return {
    calls: (key: string) => calls.get(key) ?? 0,
    load: (key: string) => async () => {
      const n = (calls.get(key) ?? 0) + 1;
      calls.set(key, n);
      return `${key}#${n}`;
    },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('AnnouncedCache, against a real Redis', () => {
  // Channels are not keys: the prefix only keeps this run's channels apart from any other's.
  const { prefix } = createRedisPrefix();
  let redis: Redis;
  let open: Array<AnnouncedCache<string>> = [];

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });

  afterEach(async () => {
    await Promise.all(open.map((cache) => cache.close()));
    open = [];
  });

  afterAll(async () => {
    await redis.quit();
  });

  /** A channel of its own for each test, so that no other test's notices reach it. */
  function newChannel(): string {
    return `${prefix}announced-cache:${randomUUID()}`;
  }

  function newCache(
    options: Partial<AnnouncedCacheOptions<string>> & { channel: string },
  ): AnnouncedCache<string> {
    const cache = new AnnouncedCache<string>({
      redis,
      redisUrl: TEST_REDIS_URL,
      ttlMs: LONG_TTL_MS,
      maxEntries: 100,
      name: 'AnnouncedCacheTest',
      ...options,
    });
    open.push(cache);
    return cache;
  }

  /**
   * Nothing is cached until the lazily opened subscription is in place: looks `key` up until a
   * lookup is answered from memory. The loads this takes are counted by `loader` like any other.
   */
  async function untilCached(
    cache: AnnouncedCache<string>,
    key: string,
    loader: ReturnType<typeof countingLoader>,
  ): Promise<void> {
    await waitFor(
      async () => {
        await cache.lookup(key, loader.load(key));
        const before = loader.calls(key);
        await cache.lookup(key, loader.load(key));
        return loader.calls(key) === before;
      },
      `${key} to be cached`,
      2000,
    );
  }

  it('answers a second lookup within the TTL from memory, without loading', async () => {
    const cache = newCache({ channel: newChannel() });
    const loader = countingLoader();
    await untilCached(cache, 'warm', loader);

    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(loader.calls('account')).toBe(1);
  });

  it('loads again once the TTL has passed', async () => {
    const cache = newCache({ channel: newChannel(), ttlMs: 50 });
    const loader = countingLoader();
    await untilCached(cache, 'warm', loader);

    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#2');
    expect(loader.calls('account')).toBe(2);
  });

  it('forget on one cache makes another on the same channel (another process) load afresh', async () => {
    const channel = newChannel();
    const here = newCache({ channel });
    const there = newCache({ channel });
    const hereLoader = countingLoader();
    const thereLoader = countingLoader();
    await untilCached(here, 'account', hereLoader);
    await untilCached(there, 'account', thereLoader);
    const loadedThere = thereLoader.calls('account');
    expect(await there.lookup('account', thereLoader.load('account'))).toBe(`account#${loadedThere}`);

    await here.forget('account');

    // The notice crosses Redis: a moment, far below the TTL.
    const seen = await lastReadUntil(
      () => there.lookup('account', thereLoader.load('account')),
      (value) => value !== `account#${loadedThere}`,
    );
    expect(seen).toBe(`account#${loadedThere + 1}`);
    // Cached again from then on.
    expect(await there.lookup('account', thereLoader.load('account'))).toBe(`account#${loadedThere + 1}`);
    expect(thereLoader.calls('account')).toBe(loadedThere + 1);
    // Forgotten at once where it was announced.
    const loadedHere = hereLoader.calls('account');
    expect(await here.lookup('account', hereLoader.load('account'))).toBe(`account#${loadedHere + 1}`);
  });

  it('returns but does not cache a value whose load overlapped a change it heard', async () => {
    const channel = newChannel();
    const announcer = newCache({ channel });
    const cache = newCache({ channel });
    const loader = countingLoader();
    await untilCached(cache, 'marker', loader);

    const stale = deferred<string>();
    const pending = cache.lookup('account', () => stale.promise);
    await announcer.forget('account');
    // Notices arrive in order on one channel: once the marker's is heard, so is the account's.
    await announcer.forget('marker');
    const markerLoads = loader.calls('marker');
    await waitFor(
      async () => {
        await cache.lookup('marker', loader.load('marker'));
        return loader.calls('marker') > markerLoads;
      },
      'the change to be heard',
      2000,
    );
    stale.resolve('stale');

    expect(await pending).toBe('stale');
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(await cache.lookup('account', loader.load('account'))).toBe('account#1');
    expect(loader.calls('account')).toBe(1);
  });

  it('with maxEntries 2, a third key evicts the oldest', async () => {
    const cache = newCache({ channel: newChannel(), maxEntries: 2 });
    const loader = countingLoader();
    await untilCached(cache, 'oldest', loader);
    const oldestLoads = loader.calls('oldest');

    await cache.lookup('middle', loader.load('middle'));
    await cache.lookup('newest', loader.load('newest'));

    expect(await cache.lookup('newest', loader.load('newest'))).toBe('newest#1');
    expect(await cache.lookup('middle', loader.load('middle'))).toBe('middle#1');
    expect(await cache.lookup('oldest', loader.load('oldest'))).toBe(`oldest#${oldestLoads + 1}`);
    expect([loader.calls('middle'), loader.calls('newest')]).toEqual([1, 1]);
  });

  /** A `loadMany` that counts its calls and answers `key#n` (n: that key's loads so far). */
  function countingBatchLoader(hold?: Promise<void>) {
    const loads = new Map<string, number>();
    const batches: string[][] = [];
    return {
      batches,
      loads: (key: string) => loads.get(key) ?? 0,
      loadMany: async (keys: readonly string[]) => {
        batches.push([...keys]);
        const values = keys.map((key) => {
          const n = (loads.get(key) ?? 0) + 1;
          loads.set(key, n);
          return key.startsWith('unknown') ? 'none' : `${key}#${n}`;
        });
        await hold;
        return values;
      },
    };
  }

  it('loads the misses of many keys together, at most maxBatch at a time, each its own value', async () => {
    const loader = countingBatchLoader();
    const cache = newCache({ channel: newChannel(), loadMany: loader.loadMany, maxBatch: 200 });
    await untilCached(cache, 'warm', countingLoader());
    const keys = Array.from({ length: 500 }, (_, i) => (i % 10 === 9 ? `unknown-${i}` : `source-${i}`));

    // Twice each key at once: a key's concurrent lookups share one load.
    const values = await Promise.all([...keys, ...keys].map((key) => cache.lookup(key)));

    expect(loader.batches.map((batch) => batch.length)).toEqual([200, 200, 100]);
    expect(values).toEqual(
      [...keys, ...keys].map((key) => (key.startsWith('unknown') ? 'none' : `${key}#1`)),
    );
    expect(keys.filter((key) => loader.loads(key) !== 1)).toEqual([]);
  });

  it('does not cache a batched value whose key changed while it loaded, but caches its neighbours', async () => {
    const channel = newChannel();
    const announcer = newCache({ channel });
    const release = deferred<void>();
    const loader = countingBatchLoader(release.promise);
    const cache = newCache({ channel, loadMany: loader.loadMany });
    const marker = countingLoader();
    await untilCached(cache, 'marker', marker);

    const pending = Promise.all([cache.lookup('changed'), cache.lookup('unchanged')]);
    await waitFor(async () => loader.batches.length === 1, 'the batch to be sent', 2000);
    await announcer.forget('changed');
    // Notices arrive in order on one channel: once the marker's is heard, so is the other's.
    await announcer.forget('marker');
    const markerLoads = marker.calls('marker');
    await waitFor(
      async () => {
        await cache.lookup('marker', marker.load('marker'));
        return marker.calls('marker') > markerLoads;
      },
      'the change to be heard',
      2000,
    );
    release.resolve();

    expect(await pending).toEqual(['changed#1', 'unchanged#1']);
    expect(await cache.lookup('changed')).toBe('changed#2');
    expect(await cache.lookup('changed')).toBe('changed#2');
    expect(await cache.lookup('unchanged')).toBe('unchanged#1');
    expect([loader.loads('changed'), loader.loads('unchanged')]).toEqual([2, 1]);
  });

  it('sends reloads ahead of expiry together after their own linger; a miss waits for none of them', async () => {
    const batches: string[][] = [];
    const cache = newCache({
      channel: newChannel(),
      ttlMs: 1_000,
      refreshAhead: 0.5,
      refreshLingerMs: 2_000,
      loadMany: async (keys) => {
        batches.push([...keys]);
        return keys.map((key) => `${key}#${batches.length}`);
      },
    });
    await untilCached(cache, 'warm', countingLoader());
    await Promise.all(['a', 'b', 'c'].map((key) => cache.lookup(key)));
    const loadedAt = Date.now();

    // In their last half: answered from memory, their reloads held back together.
    await new Promise((resolve) => setTimeout(resolve, loadedAt + 600 - Date.now()));
    expect(await Promise.all(['a', 'b', 'c'].map((key) => cache.lookup(key)))).toEqual(['a#1', 'b#1', 'c#1']);
    // A miss meanwhile goes after the misses' millisecond, alone.
    expect(await cache.lookup('d')).toBe('d#2');
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);

    // Past its expiry, with its reload still held back: the read takes the reload along with it
    // at once, and the other two follow at the end of their linger.
    await new Promise((resolve) => setTimeout(resolve, loadedAt + 1_050 - Date.now()));
    const startedAt = Date.now();
    expect(await cache.lookup('a')).toBe('a#3');
    expect(Date.now() - startedAt).toBeLessThan(500);
    expect(batches).toEqual([['a', 'b', 'c'], ['d'], ['a']]);
    await waitFor(async () => batches.length === 4, 'the held reloads', 4_000);
    expect(batches[3]).toEqual(['b', 'c']);
  });

  it('reloads an entry read near its expiry in the background, so that it never falls cold', async () => {
    let hold = deferred<void>();
    const loads: string[] = [];
    let n = 0;
    const cache = newCache({
      channel: newChannel(),
      ttlMs: 600,
      refreshAhead: 0.5,
      loadMany: async (keys) => {
        loads.push(...keys);
        n += 1;
        const values = keys.map(() => `v${n}`);
        await hold.promise;
        return values;
      },
    });
    await untilCached(cache, 'warm', countingLoader());
    hold.resolve();
    expect(await cache.lookup('source')).toBe('v1');
    const loadedAt = Date.now();

    // Read in its first half: from memory, nothing loaded.
    expect(await cache.lookup('source')).toBe('v1');
    expect(loads).toEqual(['source']);

    // Read in its last half: answered at once from memory while a reload goes on, held here.
    hold = deferred<void>();
    await new Promise((resolve) => setTimeout(resolve, loadedAt + 350 - Date.now()));
    expect(await cache.lookup('source')).toBe('v1');
    expect(await cache.lookup('source')).toBe('v1');
    await waitFor(async () => loads.length === 2, 'the reload', 2000);
    expect(await cache.lookup('source')).toBe('v1');
    expect(loads).toEqual(['source', 'source']);
    hold.resolve();
    await waitFor(async () => (await cache.lookup('source')) === 'v2', 'the reloaded value', 2000);

    // Past the first load's expiry, still answered from memory: the key never fell cold (this
    // read, late in the reload's own TTL, may start the next reload).
    await new Promise((resolve) => setTimeout(resolve, loadedAt + 650 - Date.now()));
    expect(await cache.lookup('source')).toBe('v2');

    // Left unread past its expiry, it is loaded again by the next read, which waits for it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const loadsBefore = loads.length;
    expect(await cache.lookup('source')).toBe(`v${loadsBefore + 1}`);
    expect(loads).toHaveLength(loadsBefore + 1);
  });
});
