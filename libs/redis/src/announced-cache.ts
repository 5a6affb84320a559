import { Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { cacheLookups } from '@solar/monitoring';
import { createRedisConnection } from './redis-connections';

export interface AnnouncedCacheOptions<V = unknown> {
  /** The shared client, which announces changes. */
  redis: Redis;
  /** A subscribed connection can do nothing else: the cache opens one of its own to this URL. */
  redisUrl: string;
  /** Where changes are announced; ioredis does not prefix channels, so this carries the key prefix. */
  channel: string;
  /** Bounds staleness should a change notice be lost (Redis down at the wrong moment). */
  ttlMs: number;
  /** Past this, the oldest entry goes (DEFAULT_MAX_ENTRIES unless given). */
  maxEntries?: number;
  /** For the log. */
  name: string;
  /**
   * Loads many keys in one go, answering one value per key in the same order. When given, a
   * `lookup` without a loader of its own joins the misses of the next `batchLingerMs` and they
   * are loaded together, at most `maxBatch` keys at a time.
   */
  loadMany?: (keys: readonly string[]) => Promise<V[]>;
  /** How long a miss waits for others to load with (BATCH_LINGER_MS unless given; 0: this turn). */
  batchLingerMs?: number;
  /**
   * How long a reload ahead of expiry waits for others (REFRESH_LINGER_MS unless given): nobody
   * waits for it, so it can wait for many.
   */
  refreshLingerMs?: number;
  /** Keys per `loadMany` call at most (MAX_BATCH unless given). */
  maxBatch?: number;
  /**
   * An entry read in the last `refreshAhead` part of its TTL (0.2: its last fifth) is reloaded
   * in the background while the cached value is answered, so keys in steady use never fall
   * cold; an entry not read then expires. Off (0) unless given.
   */
  refreshAhead?: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;
/** About a millisecond of misses share one load: far below a database round trip. */
export const BATCH_LINGER_MS = 1;
/**
 * Reloads ahead of expiry share one load per tenth of a second: a fleet of 50,000 sources each
 * read every 10 s is reloaded in about ten statements a second, where a millisecond's linger
 * would take a thousand.
 */
export const REFRESH_LINGER_MS = 100;
/** Keys per batched load: bounds a statement's parameters and its answer. */
export const MAX_BATCH = 1_000;

/** A miss is waited for; a reload ahead of expiry is not. */
type LoadKind = 'miss' | 'refresh';

interface Entry<V> {
  value: V;
  expiresAt: number;
  /** From then on a read reloads it in the background. */
  refreshAt: number;
}

/** A load under way for a key: later lookups share it until a change makes it stale. */
interface Load<V> {
  promise: Promise<V>;
  /** A change was heard since the load began: its value is answered but not cached. */
  stale: boolean;
  /** The entry's TTL runs from here: what was read can be no older. */
  startedAt: number;
}

interface Waiting<V> {
  promise: Promise<V>;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/**
 * What a process reads on every request and rarely changes, kept in memory for `ttlMs`. A change
 * is announced on a Redis channel and every process forgets that key at once. Nothing is cached
 * while the channel is not subscribed, everything is forgotten when it reconnects (notices may
 * have been missed meanwhile), and a lookup that overlaps a change caches nothing.
 *
 * Concurrent lookups of one key share one load. With `loadMany`, the misses of many keys are
 * loaded together (a cold start costs one query per thousand keys, not one per key), and with
 * `refreshAhead` keys in use are reloaded before they expire.
 */
export class AnnouncedCache<V> implements OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loads = new Map<string, Load<V>>();
  /** Keys waiting for the next batched load, by key, misses apart from reloads. */
  private readonly batches: Record<
    LoadKind,
    { waiting: Map<string, Waiting<V>>; lingerMs: number; timer?: NodeJS.Timeout }
  >;
  private subscriber: Redis | undefined;
  private subscribing: Promise<void> | undefined;
  private listening = false;
  /** `solar_cache_lookups_total` of this cache, bound once: a lookup costs one increment. */
  private readonly hits: { inc(): void };
  private readonly misses: { inc(): void };

  constructor(private readonly options: AnnouncedCacheOptions<V>) {
    this.logger = new Logger(options.name);
    this.hits = cacheLookups.labels(options.name, 'hit');
    this.misses = cacheLookups.labels(options.name, 'miss');
    this.batches = {
      miss: { waiting: new Map(), lingerMs: options.batchLingerMs ?? BATCH_LINGER_MS },
      refresh: { waiting: new Map(), lingerMs: options.refreshLingerMs ?? REFRESH_LINGER_MS },
    };
  }

  /**
   * The value of `key`, from memory (a hit) or else from `load`; without `load`, from the next
   * batched `loadMany` (a miss, also when it joins a load under way).
   */
  lookup(key: string, load?: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) {
      this.hits.inc();
      if (now >= cached.refreshAt && !this.loads.has(key)) {
        // Whoever reads it later gets the new value; a failed refresh leaves the entry to expire.
        this.load(key, load, 'refresh').catch((error: unknown) =>
          this.logger.debug({ err: error }, 'refresh ahead of expiry failed'),
        );
      }
      return Promise.resolve(cached.value);
    }
    this.misses.inc();
    const pending = this.loads.get(key);
    if (!pending) return this.load(key, load, 'miss');
    // A reload still waiting for company (the entry expired meanwhile) is now waited for.
    this.promote(key);
    return pending.promise;
  }

  /** After a change: forgotten here at once, and by every other process when it hears. */
  async forget(key: string): Promise<void> {
    this.changed(key);
    try {
      await this.options.redis.publish(this.options.channel, key);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'could not announce a change');
    }
  }

  private load(key: string, load: (() => Promise<V>) | undefined, kind: LoadKind): Promise<V> {
    this.subscribing ??= this.subscribe();
    const pending: Load<V> = {
      promise: started(load ?? (() => this.joinBatch(key, kind))),
      stale: false,
      startedAt: Date.now(),
    };
    this.loads.set(key, pending);
    const settled = () => {
      if (this.loads.get(key) === pending) this.loads.delete(key);
    };
    void pending.promise.then((value) => {
      settled();
      if (this.listening && !pending.stale) this.remember(key, value, pending.startedAt);
    }, settled);
    return pending.promise;
  }

  private remember(key: string, value: V, now: number): void {
    const { ttlMs, refreshAhead = 0 } = this.options;
    // Set anew at the end, so that the oldest insertion is the entry least recently loaded.
    this.entries.delete(key);
    if (this.entries.size >= (this.options.maxEntries ?? DEFAULT_MAX_ENTRIES))
      this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: now + ttlMs, refreshAt: now + ttlMs * (1 - refreshAhead) });
  }

  /** A change to `key`: its entry goes, and a load under way is neither cached nor shared. */
  private changed(key: string): void {
    this.entries.delete(key);
    const pending = this.loads.get(key);
    if (pending) {
      pending.stale = true;
      this.loads.delete(key);
    }
  }

  /** Every change may have been missed: nothing cached is trusted, nothing under way is cached. */
  private forgetAll(): void {
    this.entries.clear();
    for (const pending of this.loads.values()) pending.stale = true;
    this.loads.clear();
  }

  private joinBatch(key: string, kind: LoadKind): Promise<V> {
    if (!this.options.loadMany)
      throw new Error(`${this.options.name}: a lookup without loadMany needs a loader`);
    // Already waiting (a change made the earlier lookup's load stale before it was sent): the
    // batch is not sent yet, so its answer follows the change and serves both.
    if (kind === 'miss') this.promote(key);
    const waiting = this.batches.miss.waiting.get(key) ?? this.batches.refresh.waiting.get(key);
    if (waiting) return waiting.promise;
    let resolve!: (value: V) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<V>((done, fail) => ([resolve, reject] = [done, fail]));
    this.enqueue(kind, key, { promise, resolve, reject });
    return promise;
  }

  /** A key waiting in the reloads' batch moves to the misses', which goes sooner. */
  private promote(key: string): void {
    const waiting = this.batches.refresh.waiting.get(key);
    if (!waiting) return;
    this.batches.refresh.waiting.delete(key);
    this.enqueue('miss', key, waiting);
  }

  private enqueue(kind: LoadKind, key: string, waiting: Waiting<V>): void {
    const batch = this.batches[kind];
    batch.waiting.set(key, waiting);
    if (batch.waiting.size >= (this.options.maxBatch ?? MAX_BATCH)) this.flushBatch(kind);
    else batch.timer ??= setTimeout(() => this.flushBatch(kind), batch.lingerMs);
  }

  private flushBatch(kind: LoadKind): void {
    const pending = this.batches[kind];
    clearTimeout(pending.timer);
    pending.timer = undefined;
    const batch = pending.waiting;
    pending.waiting = new Map();
    if (batch.size === 0) return;
    const keys = [...batch.keys()];
    void started(() => this.options.loadMany!(keys))
      .then((values) => {
        if (values.length !== keys.length)
          throw new Error(
            `${this.options.name}: loadMany answered ${values.length} values for ${keys.length} keys`,
          );
        keys.forEach((key, i) => batch.get(key)!.resolve(values[i]));
      })
      .catch((error: unknown) => batch.forEach((waiting) => waiting.reject(error)));
  }

  /** A Nest provider that extends this cache closes its subscriber with the app. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.listening = false;
    clearTimeout(this.batches.miss.timer);
    clearTimeout(this.batches.refresh.timer);
    const subscriber = this.subscriber;
    // QUIT is a command: on a connection still opening it would wait, and keep it open.
    if (subscriber?.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber?.disconnect();
  }

  private async subscribe(): Promise<void> {
    const { channel } = this.options;
    const subscriber = createRedisConnection(this.options.redisUrl, `${this.options.name} subscriber`, {
      lazyConnect: true,
      autoResubscribe: false,
    });
    this.subscriber = subscriber;
    subscriber.on('message', (from: string, key: string) => {
      if (from === channel) this.changed(key);
    });
    subscriber.on('close', () => {
      this.listening = false;
      this.forgetAll();
    });
    // Also after every reconnect: notices sent while away are lost, so start from nothing.
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          this.forgetAll();
          this.listening = true;
        },
        (error: unknown) => this.logger.warn({ err: error }, `cannot subscribe to ${channel}`),
      );
    });
    await subscriber.connect().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'cache off until Redis answers');
    });
  }
}

/** `load`'s promise, also when it throws before making one. */
async function started<T>(load: () => Promise<T>): Promise<T> {
  return load();
}
