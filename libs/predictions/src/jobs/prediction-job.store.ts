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

/**
 * KEYS: marker, record. ARGV: job id, marker TTL, record TTL, then the record's field/value pairs.
 * One script, so "no active job" and "take the marker" cannot be split by a concurrent request.
 */
const CLAIM = `
local active = redis.call('GET', KEYS[1])
if active then return {'active', active} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'taken'} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
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
  | { outcome: 'taken' };

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

  /** Takes the source's marker for the record's type and stores the record, or says who holds it. */
  async claim(record: PredictionJobRecord): Promise<ClaimResult> {
    const reply = (await this.redis.eval(
      CLAIM,
      2,
      activeMarkerKey(record.type, record.sunSourceId),
      jobRecordKey(record.jobId),
      record.jobId,
      ACTIVE_MARKER_TTL_MS[record.type],
      JOB_RECORD_TTL_MS,
      ...fieldPairs(record),
    )) as [string, string?];
    if (reply[0] === 'active') return { outcome: 'active', activeJobId: reply[1]! };
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

  /** Frees the marker if this job still holds it (one that lapsed may belong to a newer job). */
  async release(type: PredictionJobType, sunSourceId: string, jobId: string): Promise<void> {
    await this.locks.release(activeMarkerKey(type, sunSourceId), jobId);
  }
}

function fieldPairs(fields: Partial<PredictionJobRecord>): string[] {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .flatMap(([name, value]) => [name, JSON.stringify(value)]);
}
