jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, IClientOptions, MqttClient } from 'mqtt';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { createTestEnvironment, TestEnvironment, waitFor } from '@solar/testing';
import { createApiApp } from '../../api/src/create-api-app';
import { Http, signUp } from '../../api/test/support/api-harness';
import { createIngestorApp } from '../src/create-ingestor-app';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, valid one day, in `dir`. */
function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** `MQTT_TLS_CERT`/`MQTT_TLS_KEY`: the embedded broker also takes devices over TLS, same rules. */
describe('the embedded broker’s TLS listener for devices', () => {
  let env: TestEnvironment;
  let api: INestApplication;
  let http: Http;
  let ingestor: INestApplication;
  let db: Client;
  let cookie: string;
  let tlsUrl: string;
  let plainUrl: string;
  let ca: Buffer;
  let certificateDir: string;
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    certificateDir = mkdtempSync(join(tmpdir(), 'mqtt-tls-'));
    const files = selfSignedCertificate(certificateDir);
    ca = readFileSync(files.cert);
    env = await createTestEnvironment();
    api = await createApiApp(env.config);
    await api.listen(0, '127.0.0.1');
    http = request(api.getHttpServer());
    const apiPort = (api.getHttpServer().address() as AddressInfo).port;
    const [plainPort, tlsPort] = [await freePort(), await freePort()];
    plainUrl = `mqtt://127.0.0.1:${plainPort}`;
    tlsUrl = `mqtts://127.0.0.1:${tlsPort}`;
    ingestor = await createIngestorApp(
      env.configWith({
        PORT: String(apiPort),
        EMBEDDED_BROKER: 'true',
        MQTT_URL: plainUrl,
        MQTT_TLS_CERT: files.cert,
        MQTT_TLS_KEY: files.key,
        MQTT_TLS_PORT: String(tlsPort),
      }),
    );
    await ingestor.startAllMicroservices();
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    ({ cookie } = await signUp(http, env.mail));
  });

  afterEach(async () => {
    await Promise.all(devices.splice(0).map((device) => device.endAsync(true)));
  });

  afterAll(async () => {
    await ingestor?.close();
    await api?.close();
    await db?.end();
    await env?.teardown();
    rmSync(certificateDir, { recursive: true, force: true });
  });

  async function createMqttSource() {
    const response = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'TLS device', connectionType: 'MQTT' })
      .expect(201);
    const details = response.body.connectionDetails as Record<string, string>;
    return {
      id: response.body.id as string,
      topic: details.mqttTopic,
      clientId: details.mqttClientId,
      key: details.mqttApiKey,
    };
  }

  async function connect(url: string, options: IClientOptions): Promise<MqttClient> {
    const client = await connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    devices.push(client);
    return client;
  }

  const storedRows = async (id: string) =>
    (
      await db.query<{ solar_power: number }>('SELECT solar_power FROM telemetry WHERE sun_source_id = $1', [
        id,
      ])
    ).rows;

  it('stores what a device publishes over TLS, the certificate checked against its CA', async () => {
    const source = await createMqttSource();
    const device = await connect(tlsUrl, {
      clientId: source.clientId,
      username: source.clientId,
      password: source.key,
      ca,
    });
    await device.publishAsync(source.topic, JSON.stringify({ pvPower: 1234 }), { qos: 1 });
    await waitFor(async () => (await storedRows(source.id)).length === 1, 'the row');
    expect(await storedRows(source.id)).toEqual([{ solar_power: 1234 }]);
  });

  it('refuses a wrong key over TLS, as over plain MQTT', async () => {
    const source = await createMqttSource();
    const wrongKey = `ak_${randomBytes(32).toString('hex')}`;
    await expect(
      connect(tlsUrl, { clientId: source.clientId, username: source.clientId, password: wrongKey, ca }),
    ).rejects.toThrow(/Not authorized/);
    await expect(
      connect(plainUrl, { clientId: source.clientId, username: source.clientId, password: wrongKey }),
    ).rejects.toThrow(/Not authorized/);
  });

  it('is a TLS port: a client that does not trust the certificate is refused at the handshake', async () => {
    const source = await createMqttSource();
    await expect(
      connect(tlsUrl, { clientId: source.clientId, username: source.clientId, password: source.key }),
    ).rejects.toThrow(/self-signed certificate/);
  });

  it('keeps the plain listener', async () => {
    const source = await createMqttSource();
    const device = await connect(plainUrl, {
      clientId: source.clientId,
      username: source.clientId,
      password: source.key,
    });
    await device.publishAsync(source.topic, JSON.stringify({ pvPower: 99 }), { qos: 1 });
    await waitFor(async () => (await storedRows(source.id)).length === 1, 'the row');
    expect(await storedRows(source.id)).toEqual([{ solar_power: 99 }]);
  });
});
