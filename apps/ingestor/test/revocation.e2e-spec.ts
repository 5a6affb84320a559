jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, MqttClient } from 'mqtt';
import { randomBytes } from 'node:crypto';
import { createMqttSource, MqttSource, waitFor } from '@solar/testing';
import { createIngestorApp } from '../src/create-ingestor-app';
import { IngestorWithApi, startIngestorWithApi } from './support/ingestor-harness';
import { deviceLogin } from './support/mqtt-devices';

const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';
/** How often the device publishes, and how far apart its (fake) timestamps are: past the throttle. */
const PUBLISH_EVERY_MS = 50;
const DEVICE_STEP_MS = 10_000;
/**
 * How many messages the device sends after the answer (however slow a loaded machine makes its
 * timer), at least how long it keeps publishing, and how long the test then waits.
 */
const SENT_AFTER_ANSWER = 15;
const AFTER_ANSWER_MS = 1000;
const SETTLE_MS = 1000;

type Revocation = 'deactivate' | 'change type' | 'rotate key' | 'delete';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Once the answer to a revocation has been sent, no message of that source's devices is stored,
 * whatever was in flight and whether or not the device was disconnected: every message's send
 * time is recorded, and no stored row may be of a message sent after the answer was received.
 */
describe('revocation while a device is publishing', () => {
  let harness: IngestorWithApi;
  let mosquittoIngestor: INestApplication;
  let topicPrefix: string;
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    topicPrefix = `revocation-${randomBytes(4).toString('hex')}`;
    harness = await startIngestorWithApi({ env: { MQTT_TOPIC_PREFIX: topicPrefix } });
    // Mosquitto authenticates no one: the ingestor's own checks and the write are all there is.
    // A group of its own gives this ingestor a client id of its own on the shared broker.
    mosquittoIngestor = await createIngestorApp(
      harness.env.configWith({
        PORT: String(harness.apiPort),
        MQTT_URL: MOSQUITTO_URL,
        MQTT_SHARED_GROUP: topicPrefix,
      }),
    );
    await mosquittoIngestor.startAllMicroservices();
  });

  afterEach(async () => {
    await Promise.all(devices.splice(0).map((device) => device.endAsync(true)));
  });

  afterAll(async () => {
    await mosquittoIngestor?.close();
    await harness?.close();
  });

  async function connect(via: 'embedded' | 'mosquitto', source: MqttSource): Promise<MqttClient> {
    const device =
      via === 'embedded'
        ? await connectAsync(harness.brokerUrl, { reconnectPeriod: 0, ...deviceLogin(source) })
        : await connectAsync(MOSQUITTO_URL, {
            reconnectPeriod: 0,
            clientId: `revocation-device-${randomBytes(4).toString('hex')}`,
          });
    // A dropped device is what revocation is for; its failed publishes are not the test's errors.
    device.on('error', () => undefined);
    devices.push(device);
    return device;
  }

  /** The source's revocation through the api (a change of type has no route: made in the database). */
  async function revoke(kind: Revocation, source: MqttSource): Promise<void> {
    const { http, cookie, db } = harness;
    const path = `/api/sunsources/${source.id}`;
    switch (kind) {
      case 'deactivate':
        await http.put(path).set('Cookie', cookie).send({ isActive: false }).expect(200);
        return;
      case 'rotate key':
        await http.post(`${path}/regenerate-mqtt-key`).set('Cookie', cookie).expect(200);
        return;
      case 'delete':
        await http.delete(path).set('Cookie', cookie).expect(204);
        return;
      case 'change type':
        // Nothing announces it and nothing disconnects: every cache in front still says MQTT.
        await db.query(
          `UPDATE sun_sources SET connection_type = 'Webhook', mqtt_api_key_encrypted = NULL,
                  webhook_secret_encrypted = 'sealed elsewhere' WHERE id = $1`,
          [source.id],
        );
    }
  }

  const storedInstants = async (sunSourceId: string) =>
    (
      await harness.db.query<{ ts: Date }>('SELECT ts FROM telemetry WHERE sun_source_id = $1 ORDER BY ts', [
        sunSourceId,
      ])
    ).rows.map((row) => row.ts.getTime());

  async function publishThroughRevocation(via: 'embedded' | 'mosquitto', kind: Revocation) {
    const source = await createMqttSource(harness.http, harness.cookie, 'Publishing');
    const device = await connect(via, source);
    const topic = `${topicPrefix}/sources/${source.id}/data`;
    const base = Date.now() - 30 * 24 * 3600_000;
    const sentAt: number[] = [];
    let publishing = true;
    const publisher = (async () => {
      for (let i = 0; publishing; i++) {
        sentAt[i] = Date.now();
        device.publish(
          topic,
          JSON.stringify({ soc: i % 100, timestamp: new Date(base + i * DEVICE_STEP_MS) }),
          {
            qos: 1,
          },
        );
        await sleep(PUBLISH_EVERY_MS);
      }
    })();
    try {
      await waitFor(async () => (await storedInstants(source.id)).length >= 3, 'the first rows');
      await revoke(kind, source);
      const answeredAt = Date.now();
      const sentAfterAnswer = () => sentAt.filter((at) => at > answeredAt).length;
      await sleep(AFTER_ANSWER_MS);
      await waitFor(() => sentAfterAnswer() >= SENT_AFTER_ANSWER, 'messages sent after the answer', 20_000);
      publishing = false;
      await publisher;
      await sleep(SETTLE_MS);
      const storedAfter = (await storedInstants(source.id))
        .map((ts) => ({
          message: (ts - base) / DEVICE_STEP_MS,
          sentAt: sentAt[(ts - base) / DEVICE_STEP_MS],
        }))
        .filter((row) => row.sentAt > answeredAt);
      return { storedAfter, sentAfter: sentAfterAnswer(), device };
    } finally {
      publishing = false;
      await publisher;
    }
  }

  describe('through the embedded broker', () => {
    it.each<Revocation>(['deactivate', 'rotate key', 'delete'])(
      '%s: the device is dropped and nothing it sent after the answer is stored',
      async (kind) => {
        const { storedAfter, sentAfter, device } = await publishThroughRevocation('embedded', kind);
        expect(sentAfter).toBeGreaterThanOrEqual(SENT_AFTER_ANSWER);
        expect(device.connected).toBe(false);
        expect(storedAfter).toEqual([]);
      },
    );

    it('change of type: the device stays connected, and nothing it sent after the change is stored', async () => {
      const { storedAfter, sentAfter, device } = await publishThroughRevocation('embedded', 'change type');
      expect(sentAfter).toBeGreaterThanOrEqual(SENT_AFTER_ANSWER);
      expect(device.connected).toBe(true);
      expect(storedAfter).toEqual([]);
    });
  });

  describe('through Mosquitto (no device authentication, no disconnect)', () => {
    it.each<Revocation>(['deactivate', 'change type', 'delete'])(
      '%s: nothing sent after the answer is stored',
      async (kind) => {
        const { storedAfter, sentAfter, device } = await publishThroughRevocation('mosquitto', kind);
        expect(sentAfter).toBeGreaterThanOrEqual(SENT_AFTER_ANSWER);
        expect(device.connected).toBe(true);
        expect(storedAfter).toEqual([]);
      },
    );
  });
});
