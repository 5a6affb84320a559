import { Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { createRedisConnection } from './redis-connections';

export interface AnnouncedCacheOptions {
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
}

const DEFAULT_MAX_ENTRIES = 100_000;

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * What a process reads on every request and rarely changes, kept in memory for `ttlMs`. A change
 * is announced on a Redis channel and every process forgets that key at once. Nothing is cached
 * while the channel is not subscribed, everything is forgotten when it reconnects (notices may
 * have been missed meanwhile), and a lookup that overlaps a change caches nothing.
 */
export class AnnouncedCache<V> implements OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly entries = new Map<string, Entry<V>>();
  private subscriber: Redis | undefined;
  private subscribing: Promise<void> | undefined;
  private listening = false;
  /** Moves on with every change heard: a lookup that started before one caches nothing. */
  private changes = 0;

  constructor(private readonly options: AnnouncedCacheOptions) {
    this.logger = new Logger(options.name);
  }

  async lookup(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;

    this.subscribing ??= this.subscribe();
    const changesBefore = this.changes;
    const value = await load();
    if (this.listening && this.changes === changesBefore) {
      if (this.entries.size >= (this.options.maxEntries ?? DEFAULT_MAX_ENTRIES))
        this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
    }
    return value;
  }

  /** After a change: forgotten here at once, and by every other process when it hears. */
  async forget(key: string): Promise<void> {
    this.changes += 1;
    this.entries.delete(key);
    try {
      await this.options.redis.publish(this.options.channel, key);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'could not announce a change');
    }
  }

  /** A Nest provider that extends this cache closes its subscriber with the app. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.listening = false;
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  private async subscribe(): Promise<void> {
    const { channel } = this.options;
    const subscriber = createRedisConnection(this.options.redisUrl, `${this.options.name} subscriber`, {
      lazyConnect: true,
      autoResubscribe: false,
    });
    this.subscriber = subscriber;
    subscriber.on('message', (from: string, key: string) => {
      if (from !== channel) return;
      this.changes += 1;
      this.entries.delete(key);
    });
    subscriber.on('close', () => {
      this.listening = false;
      this.changes += 1;
      this.entries.clear();
    });
    // Also after every reconnect: notices sent while away are lost, so start from nothing.
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          this.entries.clear();
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
