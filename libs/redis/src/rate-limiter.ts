import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from './redis.token';

/** One counter a request is charged to: at most `limit` requests per fixed window. */
export interface RateBucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

// All buckets are checked, then all charged, in one step: two api processes cannot both take
// the last slot, and a refused request charges nothing. A window starts with its first request
// and ends `window` later whatever follows, so a burst never holds a key beyond its window.
// Returns 0 when charged, else the milliseconds until every full bucket has expired.
const CHECK_AND_CHARGE = `
local wait = 0
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= tonumber(ARGV[2 * i - 1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, ARGV[2 * i])
      ttl = tonumber(ARGV[2 * i])
    end
    if ttl > wait then wait = ttl end
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return 0`;

/** Fixed-window request counters in Redis, shared by every process on the same key prefix. */
@Injectable()
export class RateLimiter {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /**
   * Charges one request to every bucket and returns undefined, or, when any bucket is full,
   * charges none and returns the whole seconds (at least 1) until a request would pass.
   */
  async consume(buckets: RateBucket[]): Promise<number | undefined> {
    if (buckets.length === 0) return undefined;
    const waitMs = (await this.redis.eval(
      CHECK_AND_CHARGE,
      buckets.length,
      ...buckets.map((bucket) => `rate:${bucket.key}`),
      ...buckets.flatMap((bucket) => [bucket.limit, bucket.windowSeconds * 1000]),
    )) as number;
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : undefined;
  }
}
