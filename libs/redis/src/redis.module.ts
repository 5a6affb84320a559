import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '@solar/config';
import { createRedisConnection } from './redis-connections';
import { RateLimiter } from './rate-limiter';
import { RedisLocks } from './redis-locks';
import { REDIS } from './redis.token';

export function createRedisClient(config: Pick<AppConfig, 'redisUrl' | 'redisKeyPrefix'>): Redis {
  return createRedisConnection(config.redisUrl, 'shared client', {
    keyPrefix: config.redisKeyPrefix,
    maxRetriesPerRequest: 3,
    // Commands issued in the same tick leave in one write. (The telemetry windows' script, a
    // command per source and message burst, bypasses this: see RedisScript.)
    enableAutoPipelining: true,
  });
}

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared ioredis client per app; every key it writes carries `REDIS_KEY_PREFIX`. */
@Global()
@Module({})
export class RedisModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        { provide: REDIS, useFactory: () => createRedisClient(config) },
        RedisShutdown,
        RedisLocks,
        RateLimiter,
      ],
      exports: [REDIS, RedisLocks, RateLimiter],
    };
  }
}
