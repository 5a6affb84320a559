import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { REDIS } from '@solar/redis';

export const THROTTLE_WINDOW_MS = 10_000;
export const DUPLICATE_WINDOW_MS = 30_000;
/** How far back (in arrival time) the throttle set remembers stored timestamps. */
export const THROTTLE_MEMORY_MS = 24 * 60 * 60 * 1000;
/**
 * A message older than this (device time against arrival time) may have neighbours the throttle
 * set has already forgotten, so the stored rows are asked too. A minute short of the memory's
 * edge, so that instances whose clocks differ a little still agree.
 */
export const REMEMBERED_AGE_MS = THROTTLE_MEMORY_MS - THROTTLE_WINDOW_MS - 60_000;
/** Whether the throttle set may have forgotten this timestamp's neighbours. */
export function isBeyondMemory(ts: Date, receivedAt: Date): boolean {
  return receivedAt.getTime() - ts.getTime() > REMEMBERED_AGE_MS;
}

/**
 * An old message's entry is removed once its row is committed (the rows answer for it from then
 * on); this expiry only clears entries a crashed process left behind.
 */
const IN_FLIGHT_TTL_MS = 5 * 60 * 1000;

/**
 * `device`: a message a device sent now. `history`: a row of an owner's import, which is not a
 * device's traffic: it neither spends the source's arrival budget nor leaves a duplicate marker
 * (one per row of a file of millions would fill Redis; the stored rows tell a re-import apart).
 */
export type AdmissionMode = 'device' | 'history';

export type Admission =
  /** `beyondMemory`: the throttle set cannot vouch for this timestamp; ask the stored rows. */
  | { status: 'admitted'; beyondMemory: boolean }
  | { status: 'duplicate' | 'throttled' }
  /**
   * This very timestamp was admitted before but its row may never have been committed (the
   * process that admitted it was killed before its write): only the stored rows can tell.
   */
  | { status: 'resent' }
  | { status: 'overBudget'; retryAfterSeconds: number };

/**
 * Whose message it is. A device's carries its fingerprint (timestamp and normalized values), the
 * key of its duplicate marker; an imported row sets no marker, so it needs none.
 */
export type Sender = { mode: 'device'; fingerprint: string } | { mode: 'history' };
export const IMPORTED_ROW: Sender = { mode: 'history' };

type AdmitCommand = (...keysThenArgs: Array<string | number>) => Promise<number[]>;

// KEYS: arrival counter, duplicate marker, throttle set (recent timestamps), in-flight set (old
// timestamps). ARGV: budget, budget window, duplicate TTL, member (ts ms), the exclusive bounds
// ts ± 10 s, the trim bound, the throttle set's TTL, '1' for an old timestamp, the in-flight set's
// TTL, '1' for an imported row (history: neither the budget nor the duplicate marker). Bounds
// come preformatted: Lua's numbers would print epoch milliseconds in exponent form.
// Answers {0} admitted, {1} duplicate, {2} throttled, {3, ms until the budget's window ends},
// {4} this very timestamp admitted before.
const ADMIT = `
if ARGV[11] ~= '1' then
  local arrivals = redis.call('INCR', KEYS[1])
  if arrivals == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  if arrivals > tonumber(ARGV[1]) then return {3, redis.call('PTTL', KEYS[1])} end
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) then return {1} end
end
if redis.call('ZSCORE', KEYS[3], ARGV[4]) or redis.call('ZSCORE', KEYS[4], ARGV[4]) then return {4} end
if #redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[5], ARGV[6], 'LIMIT', 0, 1) > 0 then return {2} end
if #redis.call('ZRANGEBYSCORE', KEYS[4], ARGV[5], ARGV[6], 'LIMIT', 0, 1) > 0 then return {2} end
if ARGV[9] == '1' then
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[4])
  redis.call('PEXPIRE', KEYS[4], ARGV[10])
else
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[7])
  redis.call('PEXPIRE', KEYS[3], ARGV[8])
end
return {0}`;

/**
 * The per-source arrival budget and the duplicate and throttle windows, in Redis so every api
 * and ingestor instance shares them. One script per message checks and records all of them
 * atomically, in this order: the budget (every message counts, whatever becomes of it), the
 * duplicate marker, then "no stored or in-flight message of this source within 10 s of this
 * timestamp, either side".
 *
 * Recent timestamps stay in the throttle set for a day of arrival time. An older timestamp is
 * recorded in a second, in-flight set only until its row is committed, and the caller checks it
 * against the stored rows: the set keeps two old messages arriving together from both passing,
 * the rows keep what was stored long ago.
 */
@Injectable()
export class TelemetryWindows {
  private readonly redis: Redis & { admitTelemetry: AdmitCommand };
  private readonly budget: number;
  private readonly budgetWindowMs: number;

  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    // A defined command travels as EVALSHA (the script is sent once, not with every message).
    redis.defineCommand('admitTelemetry', { numberOfKeys: 4, lua: ADMIT });
    this.redis = redis as Redis & { admitTelemetry: AdmitCommand };
    this.budget = config.limits.sourceMessagesPerWindow;
    this.budgetWindowMs = config.limits.sourceWindowSeconds * 1000;
  }

  async admit(sunSourceId: string, ts: Date, receivedAt: Date, sender: Sender): Promise<Admission> {
    const at = ts.getTime();
    const beyondMemory = isBeyondMemory(ts, receivedAt);
    const [verdict, budgetLeftMs] = await this.redis.admitTelemetry(
      arrivalsKey(sunSourceId),
      // An imported row's call names a marker it never touches: the script takes four keys.
      duplicateKey(sunSourceId, sender.mode === 'device' ? sender.fingerprint : ''),
      throttleKey(sunSourceId),
      inFlightKey(sunSourceId),
      this.budget,
      this.budgetWindowMs,
      DUPLICATE_WINDOW_MS,
      String(at),
      `(${at - THROTTLE_WINDOW_MS}`,
      `(${at + THROTTLE_WINDOW_MS}`,
      String(receivedAt.getTime() - THROTTLE_MEMORY_MS),
      THROTTLE_MEMORY_MS,
      beyondMemory ? '1' : '0',
      IN_FLIGHT_TTL_MS,
      sender.mode === 'history' ? '1' : '0',
    );
    switch (verdict) {
      case 0:
        return { status: 'admitted', beyondMemory };
      case 1:
        return { status: 'duplicate' };
      case 2:
        return { status: 'throttled' };
      case 4:
        return { status: 'resent' };
      default:
        return { status: 'overBudget', retryAfterSeconds: Math.max(1, Math.ceil(budgetLeftMs / 1000)) };
    }
  }

  /**
   * An old message is settled (its row committed, or refused because of a stored neighbour):
   * the stored rows answer for it from now on.
   */
  async release(sunSourceId: string, ts: Date): Promise<void> {
    await this.redis.zrem(inFlightKey(sunSourceId), String(ts.getTime()));
  }

  /** The write after `admit` failed: forget the message, so the device's retry is stored. */
  async withdraw(sunSourceId: string, ts: Date, sender: Sender): Promise<void> {
    const member = String(ts.getTime());
    const transaction = this.redis
      .multi()
      .zrem(throttleKey(sunSourceId), member)
      .zrem(inFlightKey(sunSourceId), member);
    if (sender.mode === 'device') transaction.del(duplicateKey(sunSourceId, sender.fingerprint));
    await transaction.exec();
  }
}

// The {hash tag} keeps a source's keys in one Redis Cluster slot, as the script requires.
const arrivalsKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:arrivals`;
const throttleKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:throttle`;
const inFlightKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:throttle-old`;
const duplicateKey = (sunSourceId: string, fingerprint: string) =>
  `telemetry:{${sunSourceId}}:seen:${fingerprint}`;
