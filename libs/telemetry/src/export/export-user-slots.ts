import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { REDIS } from '@solar/redis';

export const exportSlotsKey = (userId: string) => `export-slots:${userId}`;

/** A slot lives this long without a heartbeat: a crashed api frees its users' slots after it. */
export const EXPORT_SLOT_LEASE_MS = 30_000;
const HEARTBEAT_MS = EXPORT_SLOT_LEASE_MS / 3;

/**
 * KEYS: the user's slots (token → lease end, ms on Redis's clock). ARGV: token, cap, lease.
 * Drops lapsed leases, then takes a slot if fewer than `cap` are held.
 */
const ACQUIRE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** KEYS: the user's slots. ARGV: token, lease. Extends a slot still held. */
const RENEW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * Concurrent exports per user, counted in Redis so that every api replica sees the same count.
 * Each slot is a lease renewed while its export runs; a process that dies stops renewing, and
 * its slots lapse within EXPORT_SLOT_LEASE_MS.
 */
@Injectable()
export class ExportUserSlots {
  private readonly logger = new Logger(ExportUserSlots.name);

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** The function that gives the slot back (once), or undefined when the user holds `cap`. */
  async acquire(userId: string, cap: number): Promise<(() => void) | undefined> {
    const key = exportSlotsKey(userId);
    const token = randomUUID();
    const taken = await this.redis.eval(ACQUIRE, 1, key, token, cap, EXPORT_SLOT_LEASE_MS);
    if (taken !== 1) return undefined;
    const heartbeat = setInterval(() => {
      this.redis.eval(RENEW, 1, key, token, EXPORT_SLOT_LEASE_MS).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'could not renew an export slot');
      });
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      // Should Redis be away, the lease lapses by itself.
      this.redis.zrem(key, token).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'could not give an export slot back');
      });
    };
  }
}
