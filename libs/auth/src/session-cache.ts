import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { AnnouncedCache, REDIS } from '@solar/redis';

/** Channel on which every api process hears that a session was saved or ended. */
export const sessionChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}sessions:changed`;

export const SESSION_CACHE_TTL_MS = 30_000;

/**
 * Every authenticated request reads its session: kept in memory for 30 s, as stored (JSON, or
 * null when there is none), so that a request costs no Redis round trip. The session store,
 * through which every session is saved and ended (login, logout), forgets it once Redis has the
 * change (not before: a reload must see it), here and, through Redis, in every process at once:
 * a logout or a retired session id is refused on the next request.
 */
@Injectable()
export class SessionCache extends AnnouncedCache<string | null> {
  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    super({
      redis,
      redisUrl: config.redisUrl,
      channel: sessionChangedChannel(config),
      ttlMs: SESSION_CACHE_TTL_MS,
      name: SessionCache.name,
    });
  }
}
