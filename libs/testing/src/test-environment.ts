import { rm } from 'node:fs/promises';
import { AppConfig } from '@solar/config';
import { MailCapture } from './mail-capture';
import { createTestDatabase } from './test-databases';
import { createRedisPrefix } from './test-redis';
import { testConfig } from './test-config';

/** Everything one test file needs around an app: its database, Redis prefix and mailbox. */
export interface TestEnvironment {
  config: AppConfig;
  mail: MailCapture;
  /** The same environment with other settings (a second app instance, another flag). */
  configWith(env: Record<string, string>): AppConfig;
  teardown(): Promise<void>;
}

export async function createTestEnvironment(env: Record<string, string> = {}): Promise<TestEnvironment> {
  const [database, mail] = await Promise.all([createTestDatabase(), new MailCapture().start()]);
  const redis = createRedisPrefix();
  const base = { DATABASE_URL: database.url, REDIS_KEY_PREFIX: redis.prefix, SMTP_URL: mail.url, ...env };
  const config = testConfig(base);
  return {
    config,
    mail,
    configWith: (extra) =>
      testConfig({
        ...base,
        INTERNAL_API_KEY: config.internalApiKey,
        SESSION_SECRET: config.sessionSecret,
        SECRETS_KEY: config.secretsKey.toString('hex'),
        DATA_DIR: config.dataDir,
        ...extra,
      }),
    teardown: async () => {
      await Promise.all([
        database.drop(),
        redis.cleanup(),
        mail.stop(),
        rm(config.dataDir, { recursive: true, force: true }),
      ]);
    },
  };
}
