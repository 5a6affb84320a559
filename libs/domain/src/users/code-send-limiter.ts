import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { REDIS } from '@solar/redis';

const MIN_INTERVAL_MS = 60_000;
const WINDOW_MS = 3_600_000;
const MAX_PER_WINDOW = 5;

// Check and record in one step, so two concurrent resends cannot both pass.
const CHECK_AND_RECORD = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
local last = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if last[2] and tonumber(ARGV[1]) - tonumber(last[2]) < tonumber(ARGV[2]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0`;

/** At most one verification e-mail per account every 60 s and five per hour. */
@Injectable()
export class CodeSendLimiter {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Records a send at `now` and returns true, or returns false when the limit is reached. */
  async tryRecord(userId: string, now: Date): Promise<boolean> {
    const outcome = await this.redis.eval(
      CHECK_AND_RECORD,
      1,
      `verification-sends:${userId}`,
      now.getTime(),
      MIN_INTERVAL_MS,
      WINDOW_MS,
      MAX_PER_WINDOW,
      randomUUID(),
    );
    return outcome === 0;
  }
}
