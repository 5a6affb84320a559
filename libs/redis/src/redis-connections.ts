import { Logger } from '@nestjs/common';
import type { QueueBaseOptions } from 'bullmq';
import Redis, { RedisOptions } from 'ioredis';
import type { EventEmitter } from 'node:events';
import type { AppConfig } from '@solar/config';

/** While a connection keeps failing, its errors are logged at most this often. */
export const REDIS_ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Every ioredis client of the project is made here, so that none is without an error listener:
 * ioredis prints "[ioredis] Unhandled error event" and a stack through `console.error` on each
 * failed reconnection of a client that has none. `name` says which connection in the log.
 */
export function createRedisConnection(url: string, name: string, options: RedisOptions = {}): Redis {
  const client = new Redis(url, options);
  logRedisErrors(client, name);
  return client;
}

/**
 * Where a BullMQ queue or worker lives, every queue of the project. BullMQ opens its own
 * connections and refuses ioredis' `keyPrefix`: `REDIS_KEY_PREFIX` becomes its `prefix` instead,
 * so every queue key stays under ours.
 */
export function bullQueueConnection(
  config: Pick<AppConfig, 'redisUrl' | 'redisKeyPrefix'>,
): QueueBaseOptions {
  return { connection: { url: config.redisUrl }, prefix: `${config.redisKeyPrefix}bull` };
}

/**
 * Logs the errors `emitter` reports (an ioredis client, a BullMQ queue or worker) as warnings
 * without flooding the log: a client retrying an unreachable server reports one error per
 * attempt. The first error of an outage is logged, then at most one per `intervalMs` with the
 * number left unlogged; the next `ready` (ioredis emits it on every reconnection) ends the
 * outage. Only the error's code and message are logged: never the URL, which may hold a password.
 */
export function logRedisErrors(
  emitter: EventEmitter,
  name: string,
  options: { intervalMs?: number; logger?: Pick<Logger, 'warn' | 'log'> } = {},
): void {
  const intervalMs = options.intervalMs ?? REDIS_ERROR_LOG_INTERVAL_MS;
  const logger = options.logger ?? new Logger('Redis');
  let failingSince: number | undefined;
  let loggedAt = 0;
  let unlogged = 0;
  emitter.on('error', (error: unknown) => {
    const now = Date.now();
    if (failingSince !== undefined && now - loggedAt < intervalMs) {
      unlogged += 1;
      return;
    }
    failingSince ??= now;
    loggedAt = now;
    const since = unlogged > 0 ? `, ${unlogged} more errors since the last warning` : '';
    logger.warn(`${name}: Redis error (${describeError(error)})${since}`);
    unlogged = 0;
  });
  emitter.on('ready', () => {
    if (failingSince === undefined) return;
    const seconds = ((Date.now() - failingSince) / 1000).toFixed(1);
    logger.log(`${name}: Redis reachable again after ${seconds} s of errors`);
    failingSince = undefined;
    unlogged = 0;
  });
}

/** Read by shape: Node's socket errors may come from another realm than this module's `Error`. */
function describeError(error: unknown): string {
  const { code, name, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
  };
  if (typeof message !== 'string') return String(error);
  const label = typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error';
  // A URL's credentials, should a message ever quote one.
  return `${label}: ${message.replace(/\/\/[^/@\s]*@/g, '//')}`;
}
