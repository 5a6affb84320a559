jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, IClientOptions, MqttClient } from 'mqtt';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import request from 'supertest';
import { createTestEnvironment, freePort, TestEnvironment } from '@solar/testing';
import { createApiApp } from '../../api/src/create-api-app';
import { Http, signUp } from '../../api/test/support/api-harness';
import { createIngestorApp } from '../src/create-ingestor-app';

/** Low enough for a test to reach, short enough to wait out. */
const CONNECTS_PER_CLIENT_ID = 3;
const CONNECT_WINDOW_MS = 2000;

interface Source {
  id: string;
  topic: string;
  clientId: string;
  key: string;
}

const closed = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));

/**
 * The embedded broker checks devices itself, from the announced source cache: the api is still
 * used here to create and change sources, but the ingestor is pointed at a port where nothing
 * listens, so any check that went through the api would refuse every device.
 */
describe('the embedded broker checks devices without the api', () => {
  let env: TestEnvironment;
  let api: INestApplication;
  let http: Http;
  let ingestor: INestApplication;
  let brokerUrl: string;
  let db: Client;
  let cookie: string;
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    env = await createTestEnvironment();
    api = await createApiApp(env.config);
    await api.listen(0, '127.0.0.1');
    http = request(api.getHttpServer());
    const nowhere = await freePort();
    brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    ingestor = await createIngestorApp(
      env.configWith({
        PORT: String(nowhere),
        EMBEDDED_BROKER: 'true',
        MQTT_URL: brokerUrl,
        MQTT_CONNECT_RATE_LIMIT_PER_CLIENT_ID: String(CONNECTS_PER_CLIENT_ID),
        MQTT_CONNECT_RATE_LIMIT_WINDOW_SECONDS: String(CONNECT_WINDOW_MS / 1000),
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
  });

  async function createSource(): Promise<Source> {
    const response = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'Checked in process', connectionType: 'MQTT' })
      .expect(201);
    const details = response.body.connectionDetails as Record<string, string>;
    return {
      id: response.body.id,
      topic: details.mqttTopic,
      clientId: details.mqttClientId,
      key: details.mqttApiKey,
    };
  }

  async function connect(options: IClientOptions): Promise<MqttClient> {
    const device = await connectAsync(brokerUrl, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    device.on('error', () => undefined);
    devices.push(device);
    return device;
  }

  const connectDevice = (source: Source, key = source.key) =>
    connect({ clientId: source.clientId, username: source.clientId, password: key });

  const storedSoc = async (sunSourceId: string) =>
    (
      await db.query<{ soc: number }>(
        'SELECT state_of_charge AS soc FROM telemetry WHERE sun_source_id = $1 ORDER BY ts',
        [sunSourceId],
      )
    ).rows.map((row) => row.soc);

  it('lets devices connect and publish, and stores their messages', async () => {
    const sources = await Promise.all([createSource(), createSource(), createSource()]);
    await Promise.all(
      sources.map(async (source, i) => {
        const device = await connectDevice(source);
        await device.publishAsync(source.topic, JSON.stringify({ soc: 40 + i }), { qos: 1 });
      }),
    );
    for (const [i, source] of sources.entries()) expect(await storedSoc(source.id)).toEqual([40 + i]);
  });

  it('refuses a wrong key and a borrowed client id, and takes the right key', async () => {
    const [source, other] = [await createSource(), await createSource()];
    await expect(connectDevice(source, `ak_${randomBytes(32).toString('hex')}`)).rejects.toMatchObject({
      code: 5,
      message: 'Connection refused: Not authorized',
    });
    await expect(
      connect({ clientId: other.clientId, username: source.clientId, password: source.key }),
    ).rejects.toMatchObject({ code: 5 });
    const device = await connectDevice(source);
    expect(device.connected).toBe(true);
  });

  it("drops a switched-off source's device and refuses it when it reconnects", async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    await device.publishAsync(source.topic, JSON.stringify({ soc: 30 }), { qos: 1 });
    const dropped = closed(device);
    await http
      .put(`/api/sunsources/${source.id}`)
      .set('Cookie', cookie)
      .send({ isActive: false })
      .expect(200);
    await dropped;
    await expect(connectDevice(source)).rejects.toMatchObject({ code: 5 });
    expect(await storedSoc(source.id)).toEqual([30]);
  });

  it('refuses the old key at once after a rotation, and takes the new one', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    const dropped = closed(device);
    const rotated = await http
      .post(`/api/sunsources/${source.id}/regenerate-mqtt-key`)
      .set('Cookie', cookie)
      .expect(200);
    await dropped;
    await expect(connectDevice(source)).rejects.toMatchObject({ code: 5 });
    const renewed = await connectDevice(source, rotated.body.mqttApiKey as string);
    expect(renewed.connected).toBe(true);
  });

  it('refuses a client id reconnecting in a tight loop after the limit, and takes it again after the window', async () => {
    const source = await createSource();
    const firstAttemptAt = Date.now();
    const outcomes: (number | 'connected')[] = [];
    for (let attempt = 0; attempt < CONNECTS_PER_CLIENT_ID + 2; attempt++) {
      outcomes.push(
        await connectDevice(source).then(
          async (device) => {
            await device.endAsync(true);
            return 'connected' as const;
          },
          (error: { code: number }) => error.code,
        ),
      );
    }
    expect(Date.now() - firstAttemptAt).toBeLessThan(CONNECT_WINDOW_MS);
    // 3: "server unavailable", answered without looking the client's credentials up.
    expect(outcomes).toEqual(['connected', 'connected', 'connected', 3, 3]);
    // Another client id is not held back by this one.
    const neighbour = await createSource();
    expect((await connectDevice(neighbour)).connected).toBe(true);

    await sleep(firstAttemptAt + CONNECT_WINDOW_MS - Date.now() + 50);
    const again = await connectDevice(source);
    // Acknowledged once stored.
    await again.publishAsync(source.topic, JSON.stringify({ soc: 77 }), { qos: 1 });
    expect(await storedSoc(source.id)).toEqual([77]);
  });
});
