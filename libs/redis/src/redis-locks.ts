import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { REDIS } from './redis.token';

// Delete the key only if we still hold it: a lock that expired and was taken by another
// process must not be released by us.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Mutual exclusion across processes: `SET key token NX PX ttl`, released by token. */
@Injectable()
export class RedisLocks {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** The lock's token, or undefined when someone else holds it. */
  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    return (await this.redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK' ? token : undefined;
  }

  async release(key: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, key, token);
  }
}
