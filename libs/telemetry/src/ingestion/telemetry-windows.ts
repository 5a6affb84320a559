import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@solar/redis';

export const THROTTLE_WINDOW_MS = 10_000;
export const DUPLICATE_WINDOW_MS = 30_000;
/** How far back the throttle remembers stored timestamps (a device's buffered backlog). */
const THROTTLE_MEMORY_MS = 24 * 60 * 60 * 1000;

export type WindowVerdict = 'admitted' | 'duplicate' | 'throttled';

type AdmitCommand = (...keysThenArgs: Array<string | number>) => Promise<number>;

// KEYS: duplicate marker, throttle set. ARGV: duplicate TTL, member (ts ms), the exclusive
// bounds ts ± 10 s, the trim bound, the set's TTL. Bounds come preformatted: Lua's numbers would
// print epoch milliseconds in exponent form.
const ADMIT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end
if #redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[3], ARGV[4], 'LIMIT', 0, 1) > 0 then return 2 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 0`;

/**
 * The duplicate and throttle windows of DECISIONS.md, in Redis so every api and ingestor
 * instance shares them. One script checks and records both atomically: the duplicate check
 * first, then "no stored message of this source within 10 s of this timestamp, either side".
 */
@Injectable()
export class TelemetryWindows {
  private readonly redis: Redis & { admitTelemetry: AdmitCommand };

  constructor(@Inject(REDIS) redis: Redis) {
    // A defined command travels as EVALSHA (the script is sent once, not with every message).
    redis.defineCommand('admitTelemetry', { numberOfKeys: 2, lua: ADMIT });
    this.redis = redis as Redis & { admitTelemetry: AdmitCommand };
  }

  async admit(sunSourceId: string, ts: Date, fingerprint: string, receivedAt: Date): Promise<WindowVerdict> {
    const at = ts.getTime();
    const verdict = await this.redis.admitTelemetry(
      duplicateKey(sunSourceId, fingerprint),
      throttleKey(sunSourceId),
      DUPLICATE_WINDOW_MS,
      String(at),
      `(${at - THROTTLE_WINDOW_MS}`,
      `(${at + THROTTLE_WINDOW_MS}`,
      String(receivedAt.getTime() - THROTTLE_MEMORY_MS),
      THROTTLE_MEMORY_MS,
    );
    return verdict === 1 ? 'duplicate' : verdict === 2 ? 'throttled' : 'admitted';
  }

  /** The write after `admit` failed: forget the message, so the device's retry is stored. */
  async withdraw(sunSourceId: string, ts: Date, fingerprint: string): Promise<void> {
    await this.redis
      .multi()
      .zrem(throttleKey(sunSourceId), String(ts.getTime()))
      .del(duplicateKey(sunSourceId, fingerprint))
      .exec();
  }
}

// The {hash tag} keeps a source's keys in one Redis Cluster slot, as the script requires.
const throttleKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:throttle`;
const duplicateKey = (sunSourceId: string, fingerprint: string) =>
  `telemetry:{${sunSourceId}}:seen:${fingerprint}`;
