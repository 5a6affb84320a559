import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS, RedisLocks } from '@solar/redis';
import {
  ACTIVE_MARKER_TTL_MS,
  JOB_RECORD_TTL_MS,
  PredictionJobRecord,
  PredictionJobType,
} from './prediction-job';

export const jobRecordKey = (jobId: string) => `prediction-jobs:${jobId}`;
export const activeMarkerKey = (type: PredictionJobType, sunSourceId: string) =>
  `prediction-active:${type}:${sunSourceId}`;
/** The owner's active jobs: job id → the moment its marker lapses (ms, Redis clock). */
export const ownerJobsKey = (ownerId: string) => `prediction-owner-jobs:${ownerId}`;

/**
 * KEYS: marker, record, owner's jobs. ARGV: job id, marker TTL, record TTL, the owner's cap,
 * then the record's field/value pairs. One script, so "no active job", "under the owner's cap"
 * and "take the marker" cannot be split by a concurrent request. An owner's job counts until it
 * releases its marker or the marker lapses, whichever comes first, so a crashed worker cannot
 * leave the owner blocked.
 */
const CLAIM = `
local active = redis.call('GET', KEYS[1])
if active then return {'active', active} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'taken'} end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return {'limit'} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[3], ARGV[2]) end
return {'claimed'}`;

/** KEYS: record. ARGV: record TTL, then field/value pairs. A record that expired stays gone. */
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

export type ClaimResult =
  | { outcome: 'claimed' }
  | { outcome: 'active'; activeJobId: string }
  /** A record with this job id exists already (same source, type and second): try another id. */
  | { outcome: 'taken' }
  /** The owner has as many active jobs as allowed. */
  | { outcome: 'limit' };

/**
 * Job records (`prediction-jobs:{jobId}`, a hash of JSON values, 24 h after the last update) and
 * active-job markers (`prediction-active:{type}:{sourceId}` = job id, 30 or 10 minutes) in Redis.
 * The shared client adds `REDIS_KEY_PREFIX` to every key.
 */
@Injectable()
export class PredictionJobStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly locks: RedisLocks,
  ) {}

  /**
   * Takes the source's marker for the record's type and stores the record, or says who holds it,
   * or that the owner already has `ownerCap` active jobs.
   */
  async claim(record: PredictionJobRecord, ownerCap: number): Promise<ClaimResult> {
    const reply = (await this.redis.eval(
      CLAIM,
      3,
      activeMarkerKey(record.type, record.sunSourceId),
      jobRecordKey(record.jobId),
      ownerJobsKey(record.ownerId),
      record.jobId,
      ACTIVE_MARKER_TTL_MS[record.type],
      JOB_RECORD_TTL_MS,
      ownerCap,
      ...fieldPairs(record),
    )) as [string, string?];
    if (reply[0] === 'active') return { outcome: 'active', activeJobId: reply[1]! };
    if (reply[0] === 'limit') return { outcome: 'limit' };
    return reply[0] === 'taken' ? { outcome: 'taken' } : { outcome: 'claimed' };
  }

  /** A record without a marker (scheduled runs skip the concurrent-job guard). */
  async create(record: PredictionJobRecord): Promise<void> {
    const key = jobRecordKey(record.jobId);
    await this.redis
      .multi()
      .hset(key, ...fieldPairs(record))
      .pexpire(key, JOB_RECORD_TTL_MS)
      .exec();
  }

  /** Changes some fields and restarts the 24 hours; false when the record is gone. */
  async update(jobId: string, changes: Partial<PredictionJobRecord>): Promise<boolean> {
    const updated = await this.redis.eval(
      UPDATE,
      1,
      jobRecordKey(jobId),
      JOB_RECORD_TTL_MS,
      ...fieldPairs(changes),
    );
    return updated === 1;
  }

  async get(jobId: string): Promise<PredictionJobRecord | undefined> {
    const fields = await this.redis.hgetall(jobRecordKey(jobId));
    if (!fields.jobId) return undefined;
    return Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [name, JSON.parse(value)]),
    ) as PredictionJobRecord;
  }

  /**
   * Frees the marker if this job still holds it (one that lapsed may belong to a newer job), and
   * the job's place among its owner's active jobs.
   */
  async release(type: PredictionJobType, sunSourceId: string, jobId: string): Promise<void> {
    await this.locks.release(activeMarkerKey(type, sunSourceId), jobId);
    const owner = await this.redis.hget(jobRecordKey(jobId), 'ownerId');
    if (owner) await this.redis.zrem(ownerJobsKey(JSON.parse(owner) as string), jobId);
  }
}

function fieldPairs(fields: Partial<PredictionJobRecord>): string[] {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .flatMap(([name, value]) => [name, JSON.stringify(value)]);
}
