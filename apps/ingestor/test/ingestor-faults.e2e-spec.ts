import { connectAsync, IClientOptions } from 'mqtt';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import {
  ApiWithUser,
  createMqttSource,
  freePort,
  Http,
  listenOnLoopback,
  MqttSource,
  startApiWithUser,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { createApiApp } from './support/api-app';
import { DeviceFleet } from './support/device-fleet';
import { CuttableProxy, IngestorProcess } from './support/ingestor-process';
import { deviceLogin } from './support/mqtt-devices';

const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';

describe('the ingestor under faults: acknowledged after the write, bounded in flight', () => {
  let harness: ApiWithUser;
  let env: TestEnvironment;
  let apiPort: number;
  let http: Http;
  let cookie: string;
  let db: Client;
  let ingestor: IngestorProcess | undefined;
  let fleet: DeviceFleet | undefined;

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp);
    ({ env, http, cookie, db } = harness);
    apiPort = await listenOnLoopback(harness.app);
  });

  afterEach(async () => {
    await fleet?.end();
    fleet = undefined;
    await ingestor?.kill();
    ingestor = undefined;
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function createSources(n: number): Promise<MqttSource[]> {
    const sources: MqttSource[] = [];
    for (let i = 0; i < n; i += 1) sources.push(await createMqttSource(http, cookie, `fault source ${i}`));
    return sources;
  }

  async function storedOf(sources: MqttSource[]): Promise<Set<string>> {
    const result = await db.query<{ sun_source_id: string; ts: Date }>(
      'SELECT sun_source_id, ts FROM telemetry WHERE sun_source_id = ANY($1)',
      [sources.map((source) => source.id)],
    );
    return new Set(result.rows.map((row) => `${row.sun_source_id}|${row.ts.getTime()}`));
  }

  const missing = (wanted: Set<string>, stored: Set<string>) => [...wanted].filter((key) => !stored.has(key));

  function connectDevices(
    sources: MqttSource[],
    url: string,
    topicOf: (source: MqttSource) => string,
    credentials: (source: MqttSource) => IClientOptions,
  ) {
    return Promise.all(
      sources.map(async (source) => ({
        client: await connectAsync(url, {
          reconnectPeriod: 200,
          connectTimeout: 5000,
          ...credentials(source),
        }),
        sourceId: source.id,
        topic: topicOf(source),
      })),
    );
  }

  /** Devices of the embedded broker: each with its own source's credentials. */
  async function embeddedFleet(sources: MqttSource[], brokerUrl: string): Promise<DeviceFleet> {
    const devices = await connectDevices(
      sources,
      brokerUrl,
      (source) => `solar/sources/${source.id}/data`,
      (source) => deviceLogin(source),
    );
    return new DeviceFleet(devices);
  }

  it('SIGKILL under load with the embedded broker: every acknowledged message is stored', async () => {
    const sources = await createSources(10);
    const brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    ingestor = await IngestorProcess.create(env.config, {
      PORT: String(apiPort),
      EMBEDDED_BROKER: 'true',
      MQTT_URL: brokerUrl,
    });
    await ingestor.start();
    fleet = await embeddedFleet(sources, brokerUrl);
    fleet.publishAt(400);
    await sleep(3000);
    await ingestor.kill('SIGKILL');
    const acknowledgedAtKill = fleet.acknowledged.size;
    await ingestor.start();
    await sleep(1500);
    fleet.stop();
    await fleet.settled(10_000);

    const stored = await storedOf(sources);
    const lost = missing(fleet.acknowledged, stored);
    console.log(
      `embedded broker, SIGKILL: sent ${fleet.sent.size}, acknowledged ${fleet.acknowledged.size} ` +
        `(${acknowledgedAtKill} before the kill), stored ${stored.size}, acknowledged but not stored ${lost.length}`,
    );
    expect(acknowledgedAtKill).toBeGreaterThan(100);
    expect(lost).toEqual([]);
  }, 120_000);

  it('SIGKILL under load through Mosquitto: every message Mosquitto accepted is stored', async () => {
    const sources = await createSources(5);
    const prefix = `faults${randomBytes(4).toString('hex')}`;
    ingestor = await IngestorProcess.create(env.config, {
      PORT: String(apiPort),
      EMBEDDED_BROKER: 'false',
      MQTT_URL: MOSQUITTO_URL,
      MQTT_TOPIC_PREFIX: prefix,
    });
    try {
      await ingestor.start();
      const devices = await connectDevices(
        sources,
        MOSQUITTO_URL,
        (source) => `${prefix}/sources/${source.id}/data`,
        () => ({ clientId: `${prefix}-device-${randomBytes(3).toString('hex')}` }),
      );
      fleet = new DeviceFleet(devices);
      // The subscription is in place once a first message is stored.
      fleet.publish(1);
      await waitFor(async () => (await storedOf(sources)).size === 1, 'the first message stored');
      fleet.publishAt(150);
      await sleep(2500);
      await ingestor.kill('SIGKILL');
      // Mosquitto accepts and queues for the ingestor's kept session meanwhile (up to its
      // max_queued_messages, 1000 by default: beyond that it would drop them).
      await sleep(1000);
      fleet.stop();
      await fleet.settled(5000);
      await ingestor.start();
      // Redelivered messages are still being stored: wait for them, then judge below.
      await waitFor(
        async () => missing(fleet!.acknowledged, await storedOf(sources)).length === 0,
        'every accepted message stored',
        10_000,
      ).catch(() => undefined);

      const stored = await storedOf(sources);
      const lost = missing(fleet.acknowledged, stored);
      console.log(
        `Mosquitto, SIGKILL: sent ${fleet.sent.size}, accepted by Mosquitto ${fleet.acknowledged.size}, ` +
          `stored ${stored.size}, accepted but not stored ${lost.length}`,
      );
      expect(fleet.acknowledged.size).toBeGreaterThan(200);
      expect(lost).toEqual([]);
    } finally {
      await ingestor.kill();
      // Ends the ingestor's kept session on the shared broker.
      const session = await connectAsync(MOSQUITTO_URL, {
        clientId: `solar-ingestor-${prefix}`,
        clean: true,
      });
      await session.endAsync();
    }
  }, 120_000);

  it('PostgreSQL cut while devices publish: in flight stays under the cap, nothing acknowledged early, all stored after', async () => {
    const sources = await createSources(10);
    const brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    const database = new URL(env.config.databaseUrl);
    const proxy = await CuttableProxy.start(Number(database.port || 5432), database.hostname);
    database.port = String(proxy.port);
    ingestor = await IngestorProcess.create(env.config, {
      PORT: String(apiPort),
      EMBEDDED_BROKER: 'true',
      MQTT_URL: brokerUrl,
      DATABASE_URL: database.toString(),
      MQTT_MAX_IN_FLIGHT: '50',
    });
    try {
      await ingestor.start();
      fleet = await embeddedFleet(sources, brokerUrl);
      fleet.publish(20);
      await fleet.settled(5000);
      expect(fleet.acknowledged.size).toBe(20);

      proxy.interrupt();
      const acknowledgedBefore = fleet.acknowledged.size;
      fleet.publish(300);
      const seen: Array<Awaited<ReturnType<IngestorProcess['health']>>> = [];
      const outageEnds = Date.now() + 4000;
      while (Date.now() < outageEnds) {
        seen.push(await ingestor.health());
        await sleep(100);
      }
      const acknowledgedDuringOutage = fleet.acknowledged.size - acknowledgedBefore;
      proxy.reopen();
      await fleet.settled(20_000);

      const stored = await storedOf(sources);
      const maxInFlight = Math.max(...seen.map((health) => health.inFlight ?? Number.NaN));
      console.log(
        `PostgreSQL cut: sent ${fleet.sent.size}, acknowledged during the outage ${acknowledgedDuringOutage}, ` +
          `most in flight ${maxInFlight} (cap 50), acknowledged ${fleet.acknowledged.size}, stored ${stored.size}`,
      );
      expect(acknowledgedDuringOutage).toBe(0);
      expect(maxInFlight).toBe(50);
      expect(seen.some((health) => health.paused === true)).toBe(true);
      expect(missing(fleet.sent, stored)).toEqual([]);
      expect(fleet.acknowledged.size).toBe(fleet.sent.size);
      expect(await ingestor.health()).toMatchObject({
        status: 200,
        inFlight: 0,
        maxInFlight: 50,
        paused: false,
      });
    } finally {
      await ingestor.kill();
      await proxy.close();
    }
  }, 120_000);
});
