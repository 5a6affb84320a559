import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@solar/redis';

/** Attempts at disconnecting a source's clients from EMQX, the first one included. */
export const EMQX_KICK_ATTEMPTS = 5;
/** Wait before the second attempt, doubled before each next one: 2 + 4 + 8 + 16 s, ~30 s in all. */
export const EMQX_KICK_FIRST_RETRY_MS = 2000;
/** While an attempt runs it holds its entry this long; past it another process may take it over. */
export const EMQX_KICK_LEASE_MS = 60_000;
/** How long a kick given up on stays in the health detail. */
export const EMQX_KICK_FAILED_VISIBLE_MS = 60 * 60 * 1000;

/** Under the shared client's key prefix. */
export const emqxKickKeys = {
  /** Sorted set: source id → when its next attempt is due. */
  pending: 'mqtt:emqx-kicks:pending',
  /** Hash: source id → attempts made so far. */
  attempts: 'mqtt:emqx-kicks:attempts',
  /** Sorted set: source id → when it was given up on. */
  failed: 'mqtt:emqx-kicks:failed',
} as const;

// Takes a due entry for one attempt by pushing its due time past the lease, so only one process
// makes it, and one that dies mid-attempt leaves it to be taken again once the lease is over.
const CLAIM = `
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
end
return 0`;

export interface EmqxKickCounts {
  /** Sources whose clients are still to be disconnected, retried with backoff. */
  pending: number;
  /** Sources given up on after every attempt failed, within the last hour. */
  failing: number;
}

/**
 * The EMQX disconnects that failed and are to be retried, kept in Redis so that a restart of
 * the api, or another replica, carries them on.
 */
@Injectable()
export class EmqxKicks {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** After the first attempt failed: the next one is due after the first delay. */
  async firstAttemptFailed(sunSourceId: string, now: number): Promise<void> {
    await this.redis
      .multi()
      .hset(emqxKickKeys.attempts, sunSourceId, 1)
      .zadd(emqxKickKeys.pending, now + EMQX_KICK_FIRST_RETRY_MS, sunSourceId)
      .exec();
  }

  /** Up to `limit` sources whose next attempt is due, each with the number of this attempt. */
  async claimDue(now: number, limit = 20): Promise<Array<{ sunSourceId: string; attempt: number }>> {
    const due = await this.redis.zrangebyscore(emqxKickKeys.pending, 0, now, 'LIMIT', 0, limit);
    const claimed: Array<{ sunSourceId: string; attempt: number }> = [];
    for (const sunSourceId of due) {
      const made = Number(
        await this.redis.eval(
          CLAIM,
          2,
          emqxKickKeys.pending,
          emqxKickKeys.attempts,
          sunSourceId,
          now,
          now + EMQX_KICK_LEASE_MS,
        ),
      );
      if (made > 0) claimed.push({ sunSourceId, attempt: made });
    }
    return claimed;
  }

  /** Attempt number `attempt` failed: scheduled again, or given up on after the last. */
  async attemptFailed(sunSourceId: string, attempt: number, now: number): Promise<'retrying' | 'given up'> {
    if (attempt >= EMQX_KICK_ATTEMPTS) {
      await this.redis
        .multi()
        .zrem(emqxKickKeys.pending, sunSourceId)
        .hdel(emqxKickKeys.attempts, sunSourceId)
        .zadd(emqxKickKeys.failed, now, sunSourceId)
        .exec();
      return 'given up';
    }
    const delay = EMQX_KICK_FIRST_RETRY_MS * 2 ** (attempt - 1);
    await this.redis.zadd(emqxKickKeys.pending, now + delay, sunSourceId);
    return 'retrying';
  }

  /** The source's clients are gone: nothing left to retry or report for it. */
  async done(sunSourceId: string): Promise<void> {
    await this.redis
      .multi()
      .zrem(emqxKickKeys.pending, sunSourceId)
      .hdel(emqxKickKeys.attempts, sunSourceId)
      .zrem(emqxKickKeys.failed, sunSourceId)
      .exec();
  }

  async counts(now: number): Promise<EmqxKickCounts> {
    const [, pending, failing] = await Promise.all([
      this.redis.zremrangebyscore(emqxKickKeys.failed, 0, now - EMQX_KICK_FAILED_VISIBLE_MS),
      this.redis.zcard(emqxKickKeys.pending),
      this.redis.zcard(emqxKickKeys.failed),
    ]);
    return { pending, failing };
  }
}
