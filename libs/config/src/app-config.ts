/** Everything the three apps can be configured with; built once at boot by `loadConfig`. */
export interface AppConfig {
  port: number;
  ingestorPort: number;
  schedulerPort: number;
  /** The api's Prometheus metrics listener (`GET /metrics`), apart from its public port. */
  apiMetricsPort: number;
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
    /** `MQTT_CLIENT_ID`: the ingestor's client id, one per replica (default derived from the host name). */
    clientId?: string;
    /** Set when both `MQTT_TLS_CERT` and `MQTT_TLS_KEY` are. */
    tls?: MqttTls;
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
  /** Abuse limits: each one a value a normal user never meets, each configurable. */
  limits: Limits;
}

export interface Limits {
  /** Register, login, verify-email and resend-code together, per client address, per window. */
  authPerAddress: number;
  /** The same routes per e-mail address named in the body, per window. */
  authPerEmail: number;
  authWindowSeconds: number;
  /** Each costly owner route (weather refresh, count/size/stats, predictions, debug, import) per user, per window. */
  costlyPerUser: number;
  costlyWindowSeconds: number;
  /** Messages one source may send (stored or not), per window, on both transports. */
  sourceMessagesPerWindow: number;
  sourceWindowSeconds: number;
  /** Messages the ingestor holds unacknowledged; at the cap it stops taking more. */
  mqttMaxInFlight: number;
  /** CONNECTs the embedded broker takes from one client id per window; beyond, refused unchecked. */
  mqttConnectsPerClientId: number;
  mqttConnectWindowSeconds: number;
  /** Concurrent exports of one user. */
  exportsPerUser: number;
  /** A download whose client reads nothing for this long is closed. */
  exportIdleSeconds: number;
  /** `statement_timeout` of one export query (each cursor fetch). */
  exportStatementSeconds: number;
  /** Default `statement_timeout` of the connection pool. */
  statementTimeoutSeconds: number;
  /** Queued or running prediction jobs of one user. */
  predictionJobsPerUser: number;
  /** Unverified accounts older than this are removed by the scheduler. */
  unverifiedAccountMaxAgeHours: number;
  /** Price history entries per source. */
  pricesPerSource: number;
  /** Largest telemetry import (CSV bytes) taken by HTTP. */
  importMaxBytes: number;
  /** Imports up to this size are answered with their report; larger ones run as a job. */
  importInlineMaxBytes: number;
}

/** Device MQTT over TLS (embedded broker only; EMQX has its own listener). */
export interface MqttTls {
  certFile: string;
  keyFile: string;
  port: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
