import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MqttSource, waitFor } from '@solar/testing';
import { ApiOnLoopback, startApiOnLoopback } from './support/api-app';
import { allStored, createMqttSources, DeviceFleet, missing, storedOf } from './support/device-fleet';
import { endKeptSession, IngestorProcess } from './support/ingestor-process';

const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';

/**
 * Two ingestor processes in one shared subscription group (`MQTT_SHARED_GROUP`) on Mosquitto,
 * each with its own client id and kept session, as replicas run in production
 * (docs/scaling.md). Every run has its own topic prefix, group and client ids on the shared
 * broker, and ends the sessions it leaves there.
 */
describe('two ingestors in a shared group on Mosquitto', () => {
  let api: ApiOnLoopback;
  let prefix: string;
  let ingestors: IngestorProcess[] = [];
  let fleet: DeviceFleet | undefined;

  beforeAll(async () => {
    api = await startApiOnLoopback();
  });

  beforeEach(() => {
    prefix = `scale${randomBytes(4).toString('hex')}`;
  });

  afterEach(async () => {
    await fleet?.end();
    fleet = undefined;
    await Promise.all(ingestors.map((ingestor) => ingestor.kill()));
    ingestors = [];
    // Ends the kept sessions on the shared broker (it persists them).
    for (const clientId of [clientIdOf('a'), clientIdOf('b')]) await endKeptSession(MOSQUITTO_URL, clientId);
  });

  afterAll(async () => {
    await api?.close();
  });

  const clientIdOf = (replica: string) => `${prefix}-ingestor-${replica}`;

  async function startReplica(replica: string): Promise<IngestorProcess> {
    const ingestor = await IngestorProcess.create(api.env.config, {
      PORT: String(api.apiPort),
      EMBEDDED_BROKER: 'false',
      MQTT_URL: MOSQUITTO_URL,
      MQTT_TOPIC_PREFIX: prefix,
      MQTT_SHARED_GROUP: prefix,
      MQTT_CLIENT_ID: clientIdOf(replica),
      LOG_LEVEL: 'info',
    });
    ingestors.push(ingestor);
    await ingestor.start();
    return ingestor;
  }

  async function sourcesWithFleet(n: number): Promise<{ sources: MqttSource[]; fleet: DeviceFleet }> {
    const sources = await createMqttSources(api, n, 'shared source');
    const devices = await DeviceFleet.connect(
      sources,
      MOSQUITTO_URL,
      (source) => `${prefix}/sources/${source.id}/data`,
      () => ({ clientId: `${prefix}-device-${randomBytes(3).toString('hex')}` }),
    );
    return { sources, fleet: devices };
  }

  /** Both subscriptions are in place once a few messages in a row have been stored. */
  async function warmUp(sources: MqttSource[], devices: DeviceFleet): Promise<void> {
    devices.publish(4);
    await waitFor(async () => (await storedOf(api.db, sources)).rows === 4, 'the first messages stored');
  }

  it('split one stream: every message stored exactly once, by both', async () => {
    const [a, b] = [await startReplica('a'), await startReplica('b')];
    const { sources, fleet: devices } = await sourcesWithFleet(6);
    fleet = devices;
    await warmUp(sources, devices);
    devices.publishAt(200);
    await sleep(3000);
    devices.stop();
    await devices.settled(10_000);
    await waitFor(
      async () => (await storedOf(api.db, sources)).rows >= devices.sent.size,
      'every message stored',
      20_000,
    ).catch(() => undefined);
    // SIGTERM: each logs what it stored.
    await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);

    const stored = await storedOf(api.db, sources);
    console.log(
      `shared group, two ingestors: sent ${devices.sent.size}, rows ${stored.rows}, ` +
        `stored by a ${a.storedCount()}, by b ${b.storedCount()}`,
    );
    expect(devices.sent.size).toBeGreaterThan(200);
    expect(devices.acknowledged.size).toBe(devices.sent.size);
    expect(missing(devices.sent, stored.keys)).toEqual([]);
    expect(stored.rows).toBe(devices.sent.size);
    expect(a.storedCount() + b.storedCount()).toBe(devices.sent.size);
    // Mosquitto deals the messages of a group out in turn.
    expect(a.storedCount()).toBeGreaterThan(devices.sent.size / 4);
    expect(b.storedCount()).toBeGreaterThan(devices.sent.size / 4);
  }, 120_000);

  it('SIGKILL of one mid-stream, back under its client id: every message Mosquitto accepted is stored once', async () => {
    const a = await startReplica('a');
    await startReplica('b');
    const { sources, fleet: devices } = await sourcesWithFleet(6);
    fleet = devices;
    await warmUp(sources, devices);
    devices.publishAt(200);
    await sleep(2500);
    await a.kill('SIGKILL');
    const acknowledgedAtKill = devices.acknowledged.size;
    // Mosquitto goes on dealing a's share to its kept session, and queues it there until a is
    // back, up to its max_queued_messages (1000 by default) beyond which it drops them. The
    // devices stop once 200 more messages are accepted, so that share (about 100) stays well
    // inside the queue however long a's restart takes on a loaded machine.
    await waitFor(
      () => devices.acknowledged.size >= acknowledgedAtKill + 200,
      'messages accepted after the kill',
      20_000,
    );
    devices.stop();
    await a.start();
    await devices.settled(10_000);
    await allStored(api.db, sources, devices.acknowledged, 20_000);

    const stored = await storedOf(api.db, sources);
    const lost = missing(devices.acknowledged, stored.keys);
    console.log(
      `shared group, SIGKILL of one of two: sent ${devices.sent.size}, accepted by Mosquitto ` +
        `${devices.acknowledged.size} (${acknowledgedAtKill} before the kill), rows ${stored.rows}, ` +
        `accepted but not stored ${lost.length}`,
    );
    expect(acknowledgedAtKill).toBeGreaterThan(100);
    expect(devices.acknowledged.size).toBeGreaterThan(acknowledgedAtKill + 100);
    expect(lost).toEqual([]);
    expect(stored.rows).toBe(stored.keys.size);
    expect(missing(stored.keys, devices.sent)).toEqual([]);
  }, 120_000);

  it('SIGTERM of one mid-stream, never back (scaled down): the other stores every message Mosquitto accepted', async () => {
    const a = await startReplica('a');
    const b = await startReplica('b');
    const { sources, fleet: devices } = await sourcesWithFleet(6);
    fleet = devices;
    await warmUp(sources, devices);
    devices.publishAt(200);
    await sleep(2000);
    await a.kill('SIGTERM');
    await sleep(1500);
    devices.stop();
    await devices.settled(10_000);
    await allStored(api.db, sources, devices.acknowledged, 20_000);
    await b.kill('SIGTERM');

    const stored = await storedOf(api.db, sources);
    const lost = missing(devices.acknowledged, stored.keys);
    console.log(
      `shared group, SIGTERM of one of two: sent ${devices.sent.size}, accepted by Mosquitto ` +
        `${devices.acknowledged.size}, stored by a ${a.storedCount()}, by b ${b.storedCount()}, ` +
        `accepted but not stored ${lost.length}`,
    );
    expect(lost).toEqual([]);
    expect(stored.rows).toBe(devices.acknowledged.size);
    // a took its share until it unsubscribed; b, its share and then everything.
    expect(a.storedCount()).toBeGreaterThan(50);
    expect(b.storedCount()).toBeGreaterThan(a.storedCount() + 50);
  }, 120_000);
});
