import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { AnnouncedCache, REDIS } from '@solar/redis';
import type { SessionAccount } from './user.repository';

/** Channel on which every process hears that an account changed or went. */
export const accountChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}users:changed`;

export const ACCOUNT_CACHE_TTL_MS = 30_000;

/**
 * Every authenticated request needs its session's account (roles, name): kept in memory for
 * 30 s instead of a query per request. The user repository, through which every write to an
 * account passes, forgets it on each change, here and, through Redis, in every process at once;
 * so a deleted account or a changed role still takes effect on the next request.
 */
@Injectable()
export class AccountCache extends AnnouncedCache<SessionAccount | null> {
  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    super({
      redis,
      redisUrl: config.redisUrl,
      channel: accountChangedChannel(config),
      ttlMs: ACCOUNT_CACHE_TTL_MS,
      name: AccountCache.name,
    });
  }
}
