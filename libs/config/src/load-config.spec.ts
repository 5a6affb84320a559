import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const explicitSecrets = {
  INTERNAL_API_KEY: 'k'.repeat(40),
  SESSION_SECRET: 's'.repeat(40),
  SECRETS_KEY: 'ab'.repeat(32),
};

describe('loadConfig', () => {
  const made: string[] = [];
  const dataDir = () => {
    made.push(mkdtempSync(join(tmpdir(), 'solar-config-')));
    return made[made.length - 1];
  };
  afterAll(() => made.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

  it('has the documented defaults', () => {
    const config = loadConfig({ ...explicitSecrets, DATA_DIR: dataDir() });
    expect(config).toMatchObject({
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/solar',
      redisUrl: 'redis://127.0.0.1:6379',
      dbMigrate: true,
      mqtt: {
        url: 'mqtt://127.0.0.1:1883',
        topicPrefix: 'solar',
        publicHost: 'localhost',
        publicPort: 1883,
        embeddedBroker: false,
        sharedGroup: undefined,
        clientId: undefined,
        username: undefined,
        password: undefined,
      },
      cookieSecure: true,
      trustProxy: 'loopback',
      corsOrigins: [],
      smtpUrl: undefined,
      mailFrom: 'no-reply@localhost',
      verificationCodeTtlMinutes: 15,
      weatherApiUrl: 'https://api.open-meteo.com/v1/forecast',
      uploadBaseUrl: 'http://localhost:3000/uploads',
      admin: undefined,
      logLevel: 'info',
      limits: {
        authPerAddress: 30,
        authPerEmail: 10,
        authWindowSeconds: 60,
        costlyPerUser: 30,
        costlyWindowSeconds: 60,
        sourceMessagesPerWindow: 20_000,
        sourceWindowSeconds: 3600,
        mqttMaxInFlight: 2000,
        mqttConnectsPerClientId: 5,
        mqttConnectWindowSeconds: 10,
        exportsPerUser: 2,
        exportIdleSeconds: 60,
        exportStatementSeconds: 60,
        statementTimeoutSeconds: 30,
        predictionJobsPerUser: 10,
        unverifiedAccountMaxAgeHours: 168,
        pricesPerSource: 1000,
        importMaxBytes: 200 * 1024 * 1024,
        importInlineMaxBytes: 1024 * 1024,
      },
      generatedSecrets: [],
    });
    expect(config.uploadDir).toBe(join(config.dataDir, 'uploads'));
  });

  it("reads the ingestor's shared group and client id", () => {
    const config = loadConfig({
      ...explicitSecrets,
      DATA_DIR: dataDir(),
      MQTT_SHARED_GROUP: 'ingestors',
      MQTT_CLIENT_ID: ' ingestor-0 ',
    });
    expect(config.mqtt).toMatchObject({ sharedGroup: 'ingestors', clientId: 'ingestor-0' });
  });

  it('derives upload URLs from PUBLIC_BASE_URL and splits CORS origins', () => {
    const config = loadConfig({
      ...explicitSecrets,
      DATA_DIR: dataDir(),
      PUBLIC_BASE_URL: 'https://solar.example.org/',
      CORS_ORIGINS: 'https://a.example, https://b.example ,',
      TRUST_PROXY: '2',
    });
    expect(config.publicBaseUrl).toBe('https://solar.example.org');
    expect(config.uploadBaseUrl).toBe('https://solar.example.org/uploads');
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.trustProxy).toBe(2);
  });

  it('generates missing secrets once, in a 0600 file that later starts reuse', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.generatedSecrets).toEqual(['INTERNAL_API_KEY', 'SESSION_SECRET', 'SECRETS_KEY']);
    expect(second.internalApiKey).toBe(first.internalApiKey);
    expect(second.sessionSecret).toBe(first.sessionSecret);
    expect(second.secretsKey.equals(first.secretsKey)).toBe(true);
    expect(first.secretsKey).toHaveLength(32);
    const file = join(dir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).INTERNAL_API_KEY).toBe(first.internalApiKey);
  });

  it('prefers configured secrets and accepts a base64 SECRETS_KEY', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({
      ...explicitSecrets,
      SECRETS_KEY: key.toString('base64'),
      DATA_DIR: dataDir(),
    });
    expect(config.secretsKey.equals(key)).toBe(true);
    expect(config.internalApiKey).toBe(explicitSecrets.INTERNAL_API_KEY);
  });

  it.each([
    ['PORT', 'eighty', /PORT must be an integer/],
    ['PORT', '70000', /PORT must be an integer/],
    ['COOKIE_SECURE', 'maybe', /COOKIE_SECURE must be true or false/],
    ['DATABASE_URL', 'mysql://localhost/solar', /DATABASE_URL must use postgres/],
    ['REDIS_URL', 'not a url', /REDIS_URL is not a valid URL/],
    ['SECRETS_KEY', 'abcd', /SECRETS_KEY must be 32 bytes/],
    ['SESSION_SECRET', 'short', /SESSION_SECRET must be at least 32 characters/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['VERIFICATION_CODE_TTL_MINUTES', '0', /VERIFICATION_CODE_TTL_MINUTES must be an integer/],
  ])('rejects %s=%s', (name, value, message) => {
    expect(() => loadConfig({ ...explicitSecrets, DATA_DIR: dataDir(), [name]: value })).toThrow(message);
  });

  it('needs ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(() => loadConfig({ ...explicitSecrets, DATA_DIR: dataDir(), ADMIN_EMAIL: 'a@b.c' })).toThrow(
      ConfigError,
    );
    const config = loadConfig({
      ...explicitSecrets,
      DATA_DIR: dataDir(),
      ADMIN_EMAIL: 'a@b.c',
      ADMIN_PASSWORD: 'Pw-123456',
    });
    expect(config.admin).toEqual({ email: 'a@b.c', password: 'Pw-123456' });
  });

  it('reads the TLS listener of device MQTT only with both files, and each limit', () => {
    expect(() => loadConfig({ ...explicitSecrets, DATA_DIR: dataDir(), MQTT_TLS_CERT: 'c.pem' })).toThrow(
      /MQTT_TLS_CERT and MQTT_TLS_KEY must be set together/,
    );
    const config = loadConfig({
      ...explicitSecrets,
      DATA_DIR: dataDir(),
      MQTT_TLS_CERT: '/etc/tls/c.pem',
      MQTT_TLS_KEY: '/etc/tls/k.pem',
      EXPORT_MAX_PER_USER: '3',
      MQTT_MAX_IN_FLIGHT: '50',
      MQTT_CONNECT_RATE_LIMIT_PER_CLIENT_ID: '3',
      MQTT_CONNECT_RATE_LIMIT_WINDOW_SECONDS: '2',
    });
    expect(config.mqtt.tls).toEqual({ certFile: '/etc/tls/c.pem', keyFile: '/etc/tls/k.pem', port: 8883 });
    expect(config.limits).toMatchObject({
      exportsPerUser: 3,
      mqttMaxInFlight: 50,
      mqttConnectsPerClientId: 3,
      mqttConnectWindowSeconds: 2,
    });
    expect(() => loadConfig({ ...explicitSecrets, DATA_DIR: dataDir(), EXPORT_MAX_PER_USER: '0' })).toThrow(
      /EXPORT_MAX_PER_USER must be an integer/,
    );
  });

  it('reports every problem at once', () => {
    expect(() => loadConfig({ ...explicitSecrets, DATA_DIR: dataDir(), PORT: 'x', LOG_LEVEL: 'y' })).toThrow(
      /PORT[\s\S]*LOG_LEVEL/,
    );
  });
});
