jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, MqttClient } from 'mqtt';
import { AddressInfo, createServer } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { createTestEnvironment, TestEnvironment, waitFor } from '@solar/testing';
import { createApiApp } from '../../api/src/create-api-app';
import { signUp } from '../../api/test/support/api-harness';
import { createIngestorApp } from '../src/create-ingestor-app';
import { MqttTelemetryConsumer } from '../src/telemetry/mqtt-telemetry-consumer.service';
import { OutcomeCounts } from '../src/telemetry/outcome-tally';

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

const BUDGET = 5;

/** The per-source arrival budget over MQTT: past it, a message is refused and counted so. */
describe('the ingestor: the arrival budget of a source', () => {
  let env: TestEnvironment;
  let api: INestApplication;
  let ingestor: INestApplication;
  let brokerUrl: string;
  let db: Client;
  let cookie: string;
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    env = await createTestEnvironment({ SOURCE_MESSAGE_BUDGET: String(BUDGET) });
    api = await createApiApp(env.config);
    await api.listen(0, '127.0.0.1');
    const apiPort = (api.getHttpServer().address() as AddressInfo).port;
    brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    ingestor = await createIngestorApp(
      env.configWith({ PORT: String(apiPort), EMBEDDED_BROKER: 'true', MQTT_URL: brokerUrl }),
    );
    await ingestor.startAllMicroservices();
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    ({ cookie } = await signUp(request(api.getHttpServer()), env.mail));
  });

  afterAll(async () => {
    await Promise.all(devices.map((device) => device.endAsync(true)));
    await ingestor?.close();
    await api?.close();
    await db?.end();
    await env?.teardown();
  });

  async function connectedSource(): Promise<{ id: string; topic: string; device: MqttClient }> {
    const created = await request(api.getHttpServer())
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'MQTT source', connectionType: 'MQTT' })
      .expect(201);
    const details = created.body.connectionDetails as Record<string, string>;
    const device = await connectAsync(brokerUrl, {
      clientId: details.mqttClientId,
      username: details.mqttClientId,
      password: details.mqttApiKey,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    devices.push(device);
    return { id: created.body.id, topic: details.mqttTopic, device };
  }

  const outcomes = (): OutcomeCounts => ingestor.get(MqttTelemetryConsumer).outcomes();
  const handled = (counts: OutcomeCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);
  const rowCount = async (id: string) =>
    Number((await db.query('SELECT count(*) AS n FROM telemetry WHERE sun_source_id = $1', [id])).rows[0].n);

  it('stores the budget, refuses the rest as overBudget, and leaves other sources alone', async () => {
    const own = await connectedSource();
    const other = await connectedSource();
    const start = Date.now() - 3_600_000;
    const before = outcomes();
    for (let index = 0; index < BUDGET + 2; index++) {
      const payload = JSON.stringify({ soc: 50, timestamp: new Date(start + index * 10_000).toISOString() });
      await own.device.publishAsync(own.topic, payload, { qos: 1 });
    }
    await other.device.publishAsync(
      other.topic,
      JSON.stringify({ soc: 1, timestamp: new Date(start).toISOString() }),
      {
        qos: 1,
      },
    );
    await waitFor(() => handled(outcomes()) >= handled(before) + BUDGET + 3, 'every message handled');

    const now = outcomes();
    expect(now.stored - before.stored).toBe(BUDGET + 1);
    expect(now.overBudget - before.overBudget).toBe(2);
    expect(await rowCount(own.id)).toBe(BUDGET);
    expect(await rowCount(other.id)).toBe(1);
  });
});
