import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, MqttSource, waitFor } from '@solar/testing';
import { ApiOnLoopback, startApiOnLoopback } from './support/api-app';
import { allStored, createMqttSources, DeviceFleet, missing, storedOf } from './support/device-fleet';
import { CuttableProxy, endKeptSession, IngestorProcess } from './support/ingestor-process';
import { deviceLogin } from './support/mqtt-devices';

const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';

describe('the ingestor under faults: acknowledged after the write, bounded in flight', () => {
  let api: ApiOnLoopback;
  let ingestor: IngestorProcess | undefined;
  let fleet: DeviceFleet | undefined;

  beforeAll(async () => {
    api = await startApiOnLoopback();
  });

  afterEach(async () => {
    await fleet?.end();
    fleet = undefined;
    await ingestor?.kill();
    ingestor = undefined;
  });

  afterAll(async () => {
    await api?.close();
  });

  const createSources = (n: number) => createMqttSources(api, n, 'fault source');
  const storedKeys = async (sources: MqttSource[]) => (await storedOf(api.db, sources)).keys;

  /** Devices of the embedded broker: each with its own source's credentials. */
  const embeddedFleet = (sources: MqttSource[], brokerUrl: string) =>
    DeviceFleet.connect(
      sources,
      brokerUrl,
      (source) => `solar/sources/${source.id}/data`,
      (source) => deviceLogin(source),
    );

  it('SIGKILL under load with the embedded broker: every acknowledged message is stored', async () => {
    const sources = await createSources(10);
    const brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    ingestor = await IngestorProcess.create(api.env.config, {
      PORT: String(api.apiPort),
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

    const stored = await storedKeys(sources);
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
    ingestor = await IngestorProcess.create(api.env.config, {
      PORT: String(api.apiPort),
      EMBEDDED_BROKER: 'false',
      MQTT_URL: MOSQUITTO_URL,
      MQTT_TOPIC_PREFIX: prefix,
    });
    try {
      await ingestor.start();
      fleet = await DeviceFleet.connect(
        sources,
        MOSQUITTO_URL,
        (source) => `${prefix}/sources/${source.id}/data`,
        () => ({ clientId: `${prefix}-device-${randomBytes(3).toString('hex')}` }),
      );
      // The subscription is in place once a first message is stored.
      fleet.publish(1);
      await waitFor(async () => (await storedKeys(sources)).size === 1, 'the first message stored');
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
      await allStored(api.db, sources, fleet.acknowledged, 10_000);

      const stored = await storedKeys(sources);
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
      await endKeptSession(MOSQUITTO_URL, `solar-ingestor-${prefix}`);
    }
  }, 120_000);

  it('PostgreSQL cut while devices publish: in flight stays under the cap, nothing acknowledged early, all stored after', async () => {
    const sources = await createSources(10);
    const brokerUrl = `mqtt://127.0.0.1:${await freePort()}`;
    const database = new URL(api.env.config.databaseUrl);
    const proxy = await CuttableProxy.start(Number(database.port || 5432), database.hostname);
    database.port = String(proxy.port);
    ingestor = await IngestorProcess.create(api.env.config, {
      PORT: String(api.apiPort),
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

      const stored = await storedKeys(sources);
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
