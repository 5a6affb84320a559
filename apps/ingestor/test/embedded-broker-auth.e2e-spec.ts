jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, IClientOptions, MqttClient } from 'mqtt';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createMqttSource, freePort, Http, MqttSource } from '@solar/testing';
import { createIngestorApp } from '../src/create-ingestor-app';
import { ApiOnLoopback, startApiOnLoopback } from './support/api-app';
import { deviceLogin } from './support/mqtt-devices';

/** Low enough for a test to reach, short enough to wait out. */
const CONNECTS_PER_CLIENT_ID = 3;
const CONNECT_WINDOW_MS = 2000;

const closed = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));

/**
 * The embedded broker checks devices itself, from the announced source cache: the api is still
 * used here to create and change sources, but the ingestor is pointed at a port where nothing
 * listens, so any check that went through the api would refuse every device.
 */
describe('the embedded broker checks devices without the api', () => {
  let api: ApiOnLoopback;
  let http: Http;
  let ingestor: INestApplication;
  let brokerUrl: string;
  let db: Client;
  let cookie: string;
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    api = await startApiOnLoopback();
    ({ http, db, cookie } = api);
    const nowhere = await freePort();
    brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    ingestor = await createIngestorApp(
      api.env.configWith({
        PORT: String(nowhere),
        EMBEDDED_BROKER: 'true',
        MQTT_URL: brokerUrl,
        MQTT_CONNECT_RATE_LIMIT_PER_CLIENT_ID: String(CONNECTS_PER_CLIENT_ID),
        MQTT_CONNECT_RATE_LIMIT_WINDOW_SECONDS: String(CONNECT_WINDOW_MS / 1000),
      }),
    );
    await ingestor.startAllMicroservices();
  });

  afterEach(async () => {
    await Promise.all(devices.splice(0).map((device) => device.endAsync(true)));
  });

  afterAll(async () => {
    await ingestor?.close();
    await api?.close();
  });

  const createSource = () => createMqttSource(http, cookie, 'Checked in process');

  async function connect(options: IClientOptions): Promise<MqttClient> {
    const device = await connectAsync(brokerUrl, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    device.on('error', () => undefined);
    devices.push(device);
    return device;
  }

  const connectDevice = (source: MqttSource, key = source.key) => connect(deviceLogin(source, key));

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
