import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of its own for one test file, and a way to delete every key under it. */
export function createRedisPrefix(): { prefix: string; cleanup: () => Promise<void> } {
  const prefix = `test:${process.env.SOLAR_TEST_RUN_ID ?? 'adhoc'}:${randomBytes(4).toString('hex')}:`;
  return {
    prefix,
    cleanup: async () => {
      const redis = new Redis(TEST_REDIS_URL);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
