/** Everything the three apps can be configured with; built once at boot by `loadConfig`. */
export interface AppConfig {
  port: number;
  ingestorPort: number;
  schedulerPort: number;
  publicBaseUrl: string;
  databaseUrl: string;
  dbMigrate: boolean;
  redisUrl: string;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  mqtt: {
    url: string;
    username?: string;
    password?: string;
    topicPrefix: string;
    publicHost: string;
    publicPort: number;
    embeddedBroker: boolean;
    sharedGroup?: string;
  };
  emqx: { apiUrl?: string; apiKey?: string; apiSecret?: string };
  dataDir: string;
  internalApiKey: string;
  sessionSecret: string;
  /** 32-byte key that encrypts device credentials at rest. */
  secretsKey: Buffer;
  /** Names of the secrets that were generated rather than configured (for the boot warning). */
  generatedSecrets: string[];
  cookieSecure: boolean;
  trustProxy: boolean | string | number;
  corsOrigins: string[];
  smtpUrl?: string;
  mailFrom: string;
  verificationCodeTtlMinutes: number;
  weatherApiUrl: string;
  uploadDir: string;
  uploadBaseUrl: string;
  admin?: { email: string; password: string };
  logLevel: string;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
