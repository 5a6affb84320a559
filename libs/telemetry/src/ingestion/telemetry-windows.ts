import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { inOneWrite, REDIS, RedisScript } from '@solar/redis';

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

/** Messages of one source in one Redis command, at most (a file's rows arrive by the thousand). */
export const MAX_SOURCE_BATCH = 1000;

// KEYS: arrival counter, throttle set (recent timestamps), in-flight set (old timestamps), then
// the duplicate markers of the device messages. ARGV: budget, budget window, duplicate TTL, the
// throttle set's TTL, the in-flight set's TTL, then six per message: member (ts ms), the
// exclusive bounds ts ± 10 s, the trim bound, '1' for an old timestamp, and the KEYS index of its
// duplicate marker, 0 for an imported row (history: neither the budget nor a marker). Bounds come
// preformatted: Lua's numbers would print epoch milliseconds in exponent form.
// The messages are taken in order, each seeing what the ones before it recorded, exactly as one
// call per message would. Answers two numbers per message: {0} admitted, {1} duplicate,
// {2} throttled, {3, ms until the budget's window ends}, {4} this very timestamp admitted before;
// the second number is 0 but for {3}.
const ADMIT = `
local function admit(i)
  local member, lower, upper, marker = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 5])
  if marker > 0 then
    local arrivals = redis.call('INCR', KEYS[1])
    if arrivals == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
    if arrivals > tonumber(ARGV[1]) then return 3, redis.call('PTTL', KEYS[1]) end
    if not redis.call('SET', KEYS[marker], '1', 'NX', 'PX', ARGV[3]) then return 1, 0 end
  end
  if redis.call('ZSCORE', KEYS[2], member) or redis.call('ZSCORE', KEYS[3], member) then return 4, 0 end
  if #redis.call('ZRANGEBYSCORE', KEYS[2], lower, upper, 'LIMIT', 0, 1) > 0 then return 2, 0 end
  if #redis.call('ZRANGEBYSCORE', KEYS[3], lower, upper, 'LIMIT', 0, 1) > 0 then return 2, 0 end
  if ARGV[i + 4] == '1' then
    redis.call('ZADD', KEYS[3], member, member)
    redis.call('PEXPIRE', KEYS[3], ARGV[5])
  else
    redis.call('ZADD', KEYS[2], member, member)
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[i + 3])
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
  return 0, 0
end
local answers = {}
for i = 6, #ARGV, 6 do
  local verdict, wait = admit(i)
  answers[#answers + 1] = verdict
  answers[#answers + 1] = wait
end
return answers`;

interface Arrival {
  ts: Date;
  receivedAt: Date;
  sender: Sender;
  beyondMemory: boolean;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

interface Release {
  member: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The per-source arrival budget and the duplicate and throttle windows, in Redis so every api
 * and ingestor instance shares them. A script checks and records all of them atomically for each
 * message, in this order: the budget (every message counts, whatever becomes of it), the
 * duplicate marker, then "no stored or in-flight message of this source within 10 s of this
 * timestamp, either side".
 *
 * Recent timestamps stay in the throttle set for a day of arrival time. An older timestamp is
 * recorded in a second, in-flight set only until its row is committed, and the caller checks it
 * against the stored rows: the set keeps two old messages arriving together from both passing,
 * the rows keep what was stored long ago.
 *
 * The messages of one source that arrive in the same turn of the event loop (an import's rows, a
 * burst of a device's) go to Redis together: one script call admits them, one ZREM releases them.
 * A command per message would cost more than the script's work, and hold a command's objects
 * per message until the last reply of the round trip.
 */
@Injectable()
export class TelemetryWindows {
  private readonly admitScript: RedisScript;
  private readonly budget: number;
  private readonly budgetWindowMs: number;
  private readonly arrivals: SourceBatches<Arrival>;
  private readonly releases: SourceBatches<Release>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.admitScript = new RedisScript(redis, ADMIT);
    this.arrivals = new SourceBatches(redis, (sunSourceId, batch) => this.admitBatch(sunSourceId, batch));
    this.releases = new SourceBatches(redis, (sunSourceId, batch) => this.releaseBatch(sunSourceId, batch));
    this.budget = config.limits.sourceMessagesPerWindow;
    this.budgetWindowMs = config.limits.sourceWindowSeconds * 1000;
  }

  admit(sunSourceId: string, ts: Date, receivedAt: Date, sender: Sender): Promise<Admission> {
    return new Promise((resolve, reject) =>
      this.arrivals.add(sunSourceId, {
        ts,
        receivedAt,
        sender,
        beyondMemory: isBeyondMemory(ts, receivedAt),
        resolve,
        reject,
      }),
    );
  }

  /**
   * An old message is settled (its row committed, or refused because of a stored neighbour):
   * the stored rows answer for it from now on.
   */
  release(sunSourceId: string, ts: Date): Promise<void> {
    return new Promise((resolve, reject) =>
      this.releases.add(sunSourceId, { member: String(ts.getTime()), resolve, reject }),
    );
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

  private async admitBatch(sunSourceId: string, batch: readonly Arrival[]): Promise<void> {
    const keys = [arrivalsKey(sunSourceId), throttleKey(sunSourceId), inFlightKey(sunSourceId)];
    const args: Array<string | number> = [
      this.budget,
      this.budgetWindowMs,
      DUPLICATE_WINDOW_MS,
      THROTTLE_MEMORY_MS,
      IN_FLIGHT_TTL_MS,
    ];
    for (const { ts, receivedAt, sender, beyondMemory } of batch) {
      const at = ts.getTime();
      let marker = 0;
      if (sender.mode === 'device') {
        keys.push(duplicateKey(sunSourceId, sender.fingerprint));
        marker = keys.length;
      }
      args.push(
        String(at),
        `(${at - THROTTLE_WINDOW_MS}`,
        `(${at + THROTTLE_WINDOW_MS}`,
        String(receivedAt.getTime() - THROTTLE_MEMORY_MS),
        beyondMemory ? '1' : '0',
        marker,
      );
    }
    const answers = (await this.admitScript.call(keys, args)) as number[];
    batch.forEach((arrival, index) =>
      arrival.resolve(admissionOf(answers[2 * index], answers[2 * index + 1], arrival.beyondMemory)),
    );
  }

  private async releaseBatch(sunSourceId: string, batch: readonly Release[]): Promise<void> {
    await this.redis.zrem(inFlightKey(sunSourceId), ...batch.map((release) => release.member));
    for (const release of batch) release.resolve();
  }
}

function admissionOf(verdict: number, budgetLeftMs: number, beyondMemory: boolean): Admission {
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
 * Requests of the same turn of the event loop, grouped by source: each group (at most
 * MAX_SOURCE_BATCH of them) is sent as one Redis command once the turn ends, the turn's commands
 * in one write, and every request of a group whose command fails is rejected with its error.
 * Every key a command touches is then one source's, in one Redis Cluster slot.
 */
class SourceBatches<T extends { reject: (error: unknown) => void }> {
  private waiting = new Map<string, T[]>();

  constructor(
    private readonly redis: Redis,
    private readonly send: (sunSourceId: string, batch: readonly T[]) => Promise<void>,
  ) {}

  add(sunSourceId: string, request: T): void {
    if (this.waiting.size === 0) setImmediate(() => this.sendWaiting());
    const group = this.waiting.get(sunSourceId);
    if (group) group.push(request);
    else this.waiting.set(sunSourceId, [request]);
  }

  private sendWaiting(): void {
    const waiting = this.waiting;
    this.waiting = new Map();
    inOneWrite(this.redis, () => {
      for (const [sunSourceId, requests] of waiting) {
        for (let start = 0; start < requests.length; start += MAX_SOURCE_BATCH) {
          const batch = requests.slice(start, start + MAX_SOURCE_BATCH);
          this.send(sunSourceId, batch).catch((error: unknown) => {
            for (const request of batch) request.reject(error);
          });
        }
      }
    });
  }
}

// The {hash tag} keeps a source's keys in one Redis Cluster slot, as the script requires.
const arrivalsKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:arrivals`;
const throttleKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:throttle`;
const inFlightKey = (sunSourceId: string) => `telemetry:{${sunSourceId}}:throttle-old`;
const duplicateKey = (sunSourceId: string, fingerprint: string) =>
  `telemetry:{${sunSourceId}}:seen:${fingerprint}`;
