import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@solar/redis';

/** What the debug status endpoint reports: `{ running, startedAt, messagesSent }`. */
export interface LiveGeneratorStatus {
  running: boolean;
  /** ISO 8601; null when no generator ever ran for the source. */
  startedAt: string | null;
  messagesSent: number;
}

/** A stopped run's status stays readable this long; every tick renews it. */
const STATUS_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// KEYS: the run hash. ARGV: new run id, startedAt (ISO), now (ms), stale-before (ms), TTL (ms).
// A run whose heartbeat is recent is kept (starting twice is idempotent); a stopped run, or one
// whose process died without saying so, is replaced.
const START = `
local current = redis.call('HMGET', KEYS[1], 'running', 'heartbeatAt', 'startedAt', 'messagesSent')
if current[1] == '1' and tonumber(current[2] or '0') >= tonumber(ARGV[4]) then
  return {0, current[3], current[4]}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'runId', ARGV[1], 'startedAt', ARGV[2], 'messagesSent', '0', 'running', '1', 'heartbeatAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, ARGV[2], '0'}`;

// KEYS: the run hash. ARGV: run id, now (ms), TTL (ms). Counts a message of that run (even one
// that was under way when someone stopped it) and says whether the run should go on:
// 1 go on, 0 stopped, -1 replaced by another run or gone.
const RECORD_MESSAGE = `
if redis.call('HGET', KEYS[1], 'runId') ~= ARGV[1] then return -1 end
redis.call('HINCRBY', KEYS[1], 'messagesSent', 1)
redis.call('HSET', KEYS[1], 'heartbeatAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('HGET', KEYS[1], 'running') == '1' then return 1 end
return 0`;

// KEYS: the run hash. ARGV: run id, or '' for whichever run. The stop flag the owner checks.
const STOP = `
local runId = redis.call('HGET', KEYS[1], 'runId')
if not runId or (ARGV[1] ~= '' and runId ~= ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'running', '0')
return 1`;

/**
 * The live generators' shared state, in Redis so that every api instance answers the same:
 * a hash per source with the run id, start time, message count, a running flag (cleared to ask
 * the owning process to stop at its next tick) and the owner's heartbeat (a run whose owner
 * stopped beating, because its process died, counts as not running).
 */
@Injectable()
export class SyntheticRuns {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Starts a run unless one is alive; `created` says whether the caller now owns a new one. */
  async start(
    sunSourceId: string,
    runId: string,
    now: Date,
    staleBefore: Date,
  ): Promise<{ created: boolean; status: LiveGeneratorStatus }> {
    const [created, startedAt, messagesSent] = (await this.redis.eval(
      START,
      1,
      runKey(sunSourceId),
      runId,
      now.toISOString(),
      String(now.getTime()),
      String(staleBefore.getTime()),
      String(STATUS_TTL_MS),
    )) as [number, string, string];
    return {
      created: created === 1,
      status: { running: true, startedAt, messagesSent: Number(messagesSent) },
    };
  }

  /** Whether `runId` is still the source's run and still asked to run: checked before each message. */
  async shouldRun(sunSourceId: string, runId: string): Promise<boolean> {
    const [current, running] = await this.redis.hmget(runKey(sunSourceId), 'runId', 'running');
    return current === runId && running === '1';
  }

  /** Counts one message of `runId`; false when the run was stopped or replaced meanwhile. */
  async recordMessage(sunSourceId: string, runId: string, now: Date): Promise<boolean> {
    const verdict = await this.redis.eval(
      RECORD_MESSAGE,
      1,
      runKey(sunSourceId),
      runId,
      String(now.getTime()),
      String(STATUS_TTL_MS),
    );
    return verdict === 1;
  }

  /** Raises the stop flag of the source's run (of `runId` only, when given). */
  async stop(sunSourceId: string, runId = ''): Promise<void> {
    await this.redis.eval(STOP, 1, runKey(sunSourceId), runId);
  }

  async status(sunSourceId: string, staleBefore: Date): Promise<LiveGeneratorStatus> {
    const [running, heartbeatAt, startedAt, messagesSent] = await this.redis.hmget(
      runKey(sunSourceId),
      'running',
      'heartbeatAt',
      'startedAt',
      'messagesSent',
    );
    return {
      running: running === '1' && Number(heartbeatAt) >= staleBefore.getTime(),
      startedAt: startedAt ?? null,
      messagesSent: Number(messagesSent ?? 0),
    };
  }
}

// The {hash tag} keeps a source's keys in one Redis Cluster slot, like the telemetry windows.
const runKey = (sunSourceId: string) => `synthetic:{${sunSourceId}}`;
