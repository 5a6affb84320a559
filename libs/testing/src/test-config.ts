import { randomBytes } from 'node:crypto';
import { AppConfig, loadConfig } from '@solar/config';
import { testDataDir } from './test-data-dir';
import { TEST_REDIS_URL } from './test-redis';

/**
 * Configuration for an app under test, through the same `loadConfig` as production: explicit
 * secrets, quiet logs, plain-HTTP cookies, a data directory of its own unless `DATA_DIR` is given
 * (`testDataDir`: the global teardown removes it, should the caller not).
 */
export function testConfig(env: Record<string, string | undefined>): AppConfig {
  return loadConfig({
    DATA_DIR: env.DATA_DIR ?? testDataDir(),
    REDIS_URL: TEST_REDIS_URL,
    INTERNAL_API_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    COOKIE_SECURE: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    INGESTOR_PORT: '0',
    SCHEDULER_PORT: '0',
    API_METRICS_PORT: '0',
    // Many accounts sign up from one loopback address in a test file; the tests of the auth
    // rate limits set their own.
    AUTH_RATE_LIMIT_PER_ADDRESS: '1000000',
    AUTH_RATE_LIMIT_PER_EMAIL: '1000000',
    ...env,
  });
}
