import { resolve } from 'node:path';
import { AppConfig } from './app-config';
import { ConfigError } from './config-error';
import { readOrCreateSecretsFile } from './secrets-file';

type Env = Record<string, string | undefined>;

/** Reads and validates the environment once. The only place that touches `process.env`. */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const read = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };
  const optional = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name, String(fallback));
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = read(name, String(fallback)).toLowerCase();
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, fallback: string, protocols: string[]): string => {
    const raw = read(name, fallback);
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')}`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw.replace(/\/+$/, '');
  };

  const publicBaseUrl = url('PUBLIC_BASE_URL', 'http://localhost:3000', ['http:', 'https:']);
  const dataDir = resolve(read('DATA_DIR', './data'));
  const mqttUrl = url('MQTT_URL', 'mqtt://127.0.0.1:1883', ['mqtt:', 'mqtts:', 'tcp:', 'ws:', 'wss:']);

  const configured = {
    INTERNAL_API_KEY: optional('INTERNAL_API_KEY'),
    SESSION_SECRET: optional('SESSION_SECRET'),
    SECRETS_KEY: optional('SECRETS_KEY'),
  };
  const generatedSecrets = Object.entries(configured)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  const generated = generatedSecrets.length > 0 ? readOrCreateSecretsFile(dataDir) : undefined;
  const secret = (name: keyof typeof configured): string => configured[name] ?? generated![name];

  const secretsKey = parseKey(secret('SECRETS_KEY'));
  if (!secretsKey) problems.push('SECRETS_KEY must be 32 bytes, hex (64 characters) or base64');
  if (secret('SESSION_SECRET').length < 32) problems.push('SESSION_SECRET must be at least 32 characters');
  if (secret('INTERNAL_API_KEY').length < 32)
    problems.push('INTERNAL_API_KEY must be at least 32 characters');

  const tlsCert = optional('MQTT_TLS_CERT');
  const tlsKey = optional('MQTT_TLS_KEY');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    problems.push('MQTT_TLS_CERT and MQTT_TLS_KEY must be set together');
  }

  const adminEmail = optional('ADMIN_EMAIL');
  const adminPassword = optional('ADMIN_PASSWORD');

  const config: AppConfig = {
    port: int('PORT', 3000, 0, 65535),
    ingestorPort: int('INGESTOR_PORT', 3001, 0, 65535),
    schedulerPort: int('SCHEDULER_PORT', 3002, 0, 65535),
    apiMetricsPort: int('API_METRICS_PORT', 3003, 0, 65535),
    publicBaseUrl,
    databaseUrl: url('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/solar', [
      'postgres:',
      'postgresql:',
    ]),
    dbMigrate: bool('DB_MIGRATE', true),
    redisUrl: url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisKeyPrefix: read('REDIS_KEY_PREFIX', 'solar:'),
    mqtt: {
      url: mqttUrl,
      username: optional('MQTT_USERNAME'),
      password: optional('MQTT_PASSWORD'),
      topicPrefix: read('MQTT_TOPIC_PREFIX', 'solar'),
      publicHost: read('MQTT_PUBLIC_HOST', 'localhost'),
      publicPort: int('MQTT_PUBLIC_PORT', 1883, 1, 65535),
      embeddedBroker: bool('EMBEDDED_BROKER', false),
      sharedGroup: optional('MQTT_SHARED_GROUP'),
      clientId: optional('MQTT_CLIENT_ID'),
      tls:
        tlsCert && tlsKey
          ? {
              certFile: resolve(tlsCert),
              keyFile: resolve(tlsKey),
              port: int('MQTT_TLS_PORT', 8883, 0, 65535),
            }
          : undefined,
    },
    emqx: {
      apiUrl: optional('EMQX_API_URL')?.replace(/\/+$/, ''),
      apiKey: optional('EMQX_API_KEY'),
      apiSecret: optional('EMQX_API_SECRET'),
    },
    dataDir,
    internalApiKey: secret('INTERNAL_API_KEY'),
    sessionSecret: secret('SESSION_SECRET'),
    secretsKey: secretsKey ?? Buffer.alloc(32),
    generatedSecrets,
    cookieSecure: bool('COOKIE_SECURE', true),
    trustProxy: parseTrustProxy(read('TRUST_PROXY', 'loopback')),
    corsOrigins: read('CORS_ORIGINS', '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    smtpUrl: optional('SMTP_URL'),
    mailFrom: read('MAIL_FROM', 'no-reply@localhost'),
    verificationCodeTtlMinutes: int('VERIFICATION_CODE_TTL_MINUTES', 15, 1, 24 * 60),
    weatherApiUrl: url('WEATHER_API_URL', 'https://api.open-meteo.com/v1/forecast', ['http:', 'https:']),
    uploadDir: resolve(read('UPLOAD_DIR', resolve(dataDir, 'uploads'))),
    uploadBaseUrl: read('UPLOAD_BASE_URL', `${publicBaseUrl}/uploads`).replace(/\/+$/, ''),
    admin: adminEmail && adminPassword ? { email: adminEmail, password: adminPassword } : undefined,
    logLevel: read('LOG_LEVEL', 'info'),
    limits: {
      authPerAddress: int('AUTH_RATE_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
      authPerEmail: int('AUTH_RATE_LIMIT_PER_EMAIL', 10, 1, 1_000_000),
      authWindowSeconds: int('AUTH_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      costlyPerUser: int('COSTLY_RATE_LIMIT_PER_USER', 30, 1, 1_000_000),
      costlyWindowSeconds: int('COSTLY_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      sourceMessagesPerWindow: int('SOURCE_MESSAGE_BUDGET', 20_000, 1, 100_000_000),
      sourceWindowSeconds: int('SOURCE_MESSAGE_BUDGET_WINDOW_SECONDS', 3600, 1, 86_400),
      mqttMaxInFlight: int('MQTT_MAX_IN_FLIGHT', 2000, 1, 1_000_000),
      mqttConnectsPerClientId: int('MQTT_CONNECT_RATE_LIMIT_PER_CLIENT_ID', 5, 1, 1_000_000),
      mqttConnectWindowSeconds: int('MQTT_CONNECT_RATE_LIMIT_WINDOW_SECONDS', 10, 1, 86_400),
      exportsPerUser: int('EXPORT_MAX_PER_USER', 2, 1, 1000),
      exportIdleSeconds: int('EXPORT_IDLE_TIMEOUT_SECONDS', 60, 1, 86_400),
      exportStatementSeconds: int('EXPORT_STATEMENT_TIMEOUT_SECONDS', 60, 1, 86_400),
      statementTimeoutSeconds: int('DB_STATEMENT_TIMEOUT_SECONDS', 30, 1, 86_400),
      predictionJobsPerUser: int('PREDICTION_MAX_JOBS_PER_USER', 10, 1, 100_000),
      unverifiedAccountMaxAgeHours: int('UNVERIFIED_ACCOUNT_MAX_AGE_HOURS', 168, 1, 87_600),
      pricesPerSource: int('MAX_PRICES_PER_SOURCE', 1000, 1, 1_000_000),
      importMaxBytes: int('IMPORT_MAX_BYTES', 200 * 1024 * 1024, 1, 1024 ** 4),
      importInlineMaxBytes: int('IMPORT_INLINE_MAX_BYTES', 1024 * 1024, 0, 1024 ** 4),
    },
  };

  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function parseKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const decoded = Buffer.from(value, 'base64');
  return decoded.length === 32 ? decoded : undefined;
}

/** Express's `trust proxy` accepts booleans, hop counts and address lists; keep that meaning. */
function parseTrustProxy(value: string): boolean | string | number {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
