import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { AnnouncedCache, REDIS } from '@solar/redis';

/** Channel on which every api process hears that a session was saved or ended. */
export const sessionChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}sessions:changed`;

export const SESSION_CACHE_TTL_MS = 30_000;

/**
 * Every authenticated request reads its session: kept in memory for 30 s, as stored (JSON), so
 * that a request costs no Redis round trip. The session store, through which every session is
 * saved and ended (login, logout), forgets it on each change, here and, through Redis, in every
 * process at once: a logout or a retired session id is refused on the next request.
 */
@Injectable()
export class SessionCache implements OnApplicationShutdown {
  private readonly cache: AnnouncedCache<string | null>;

  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    this.cache = new AnnouncedCache({
      redis,
      redisUrl: config.redisUrl,
      channel: sessionChangedChannel(config),
      ttlMs: SESSION_CACHE_TTL_MS,
      maxEntries: 100_000,
      name: SessionCache.name,
    });
  }

  /** The session as stored, or null when there is none. */
  lookup(sid: string, load: () => Promise<string | null>): Promise<string | null> {
    return this.cache.lookup(sid, load);
  }

  /** After the session was written or deleted in Redis (not before: a reload must see the change). */
  forget(sid: string): Promise<void> {
    return this.cache.forget(sid);
  }

  onApplicationShutdown(): Promise<void> {
    return this.cache.close();
  }
}
