jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { IClientOptions, MqttClient } from 'mqtt';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DeviceAuthService, ingestorCredentials } from '@solar/domain';
import {
  createMqttSource,
  createWebhookSource,
  Http,
  logIn,
  MqttSource,
  signUp,
  waitFor,
} from '@solar/testing';
import { MqttTelemetryConsumer } from '../src/telemetry/mqtt-telemetry-consumer.service';
import { OutcomeCounts } from '../src/telemetry/outcome-tally';
import { IngestorWithApi, startIngestorWithApi } from './support/ingestor-harness';
import { deviceLogin, MqttClients } from './support/mqtt-devices';

const DAY_MS = 24 * 60 * 60 * 1000;

const closed = (client: MqttClient) => new Promise<void>((resolve) => client.once('close', () => resolve()));

describe('the ingestor with its embedded broker', () => {
  let harness: IngestorWithApi;
  let http: Http;
  let db: Client;
  let cookie: string;
  const devices = new MqttClients();

  beforeAll(async () => {
    harness = await startIngestorWithApi({
      env: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'Root-Pass-123' },
    });
    ({ http, db, cookie } = harness);
  });

  afterEach(async () => {
    await devices.endAll();
  });

  afterAll(async () => {
    await harness?.close();
  });

  const createSource = (ownerCookie = cookie) => createMqttSource(http, ownerCookie);
  const connect = (options: IClientOptions) => devices.connect(harness.brokerUrl, options);
  const connectDevice = (source: MqttSource, key = source.key) => connect(deviceLogin(source, key));

  /** The ingestor's own account under another client id: may publish anywhere. */
  const connectSuperuser = () =>
    connect({
      clientId: `test-publisher-${randomBytes(3).toString('hex')}`,
      ...ingestorCredentials(harness.ingestorConfig),
    });

  async function rows(sunSourceId: string) {
    const result = await db.query<{
      ts: Date;
      state_of_charge: number | null;
      solar_power: number | null;
      raw: unknown;
    }>('SELECT ts, state_of_charge, solar_power, raw FROM telemetry WHERE sun_source_id = $1 ORDER BY ts', [
      sunSourceId,
    ]);
    return result.rows;
  }

  const outcomes = (): OutcomeCounts => harness.ingestor.get(MqttTelemetryConsumer).outcomes();
  const handled = (counts: OutcomeCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

  /** Waits until the ingestor has dealt with `n` more messages than in `before`. */
  async function handledSince(before: OutcomeCounts, n: number): Promise<OutcomeCounts> {
    await waitFor(() => handled(outcomes()) >= handled(before) + n, `${n} messages handled`);
    const now = outcomes();
    return Object.fromEntries(
      Object.entries(now).map(([k, v]) => [k, v - before[k as keyof OutcomeCounts]]),
    ) as OutcomeCounts;
  }

  const at = (ms: number) => new Date(ms).toISOString();

  it('stores what a device publishes on its own form B topic, normalized, with the raw payload', async () => {
    const source = await createSource();
    expect(source.topic).toBe(`solar/sources/${source.id}/data`);
    const device = await connectDevice(source);
    const payload = { soc: 55, pvPower: 1200, timestamp: at(Date.now() - 60_000) };
    await device.publishAsync(source.topic, JSON.stringify(payload), { qos: 1 });
    await waitFor(async () => (await rows(source.id)).length === 1, 'the row');
    const [row] = await rows(source.id);
    expect(row).toMatchObject({ state_of_charge: 55, solar_power: 1200, raw: payload });
  });

  it('accepts topic form A with the source id as username and sunsource_{short id} as client id', async () => {
    const source = await createSource();
    const device = await connect({
      clientId: `sunsource_${source.id.slice(0, 8)}`,
      username: source.id,
      password: source.key,
    });
    await device.publishAsync(`sunsource/${source.id}/data`, JSON.stringify({ batteryLevel: 80 }), {
      qos: 1,
    });
    await waitFor(async () => (await rows(source.id)).length === 1, 'the row');
    expect((await rows(source.id))[0].state_of_charge).toBe(80);
  });

  it('refuses a wrong key, a borrowed client id and a Webhook source at connect', async () => {
    const source = await createSource();
    const webhook = await createWebhookSource(http, cookie);
    const wrongKey = `ak_${randomBytes(32).toString('hex')}`;
    await expect(connectDevice(source, wrongKey)).rejects.toThrow(/Not authorized/);
    await expect(
      connect({ clientId: `src-${randomUUID()}`, username: source.clientId, password: source.key }),
    ).rejects.toThrow(/Not authorized/);
    await expect(
      connect({ clientId: `src-${webhook.id}`, username: `src-${webhook.id}`, password: wrongKey }),
    ).rejects.toThrow(/Not authorized/);
    // The right key still works.
    await expect(connectDevice(source)).resolves.toBeDefined();
  });

  it("drops a device that publishes to another source's topic, and stores nothing", async () => {
    const [mine, theirs] = [await createSource(), await createSource()];
    const device = await connectDevice(mine);
    const dropped = closed(device);
    device.publish(theirs.topic, JSON.stringify({ soc: 10 }), { qos: 1 });
    await dropped;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await rows(theirs.id)).toEqual([]);
    expect(await rows(mine.id)).toEqual([]);
  });

  it('does not let a device subscribe', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    // SUBACK 0x80 for each filter, which mqtt.js reports as an error.
    await expect(device.subscribeAsync([source.topic, '#'], { qos: 1 })).rejects.toMatchObject({
      packet: { cmd: 'suback', granted: [128, 128] },
    });
    expect(device.connected).toBe(true);
  });

  it('drops live devices when the key is regenerated (old key refused, new one accepted) and when the source is deleted', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    const dropped = closed(device);
    const regenerated = await http
      .post(`/api/sunsources/${source.id}/regenerate-mqtt-key`)
      .set('Cookie', cookie)
      .expect(200);
    await dropped;
    await expect(connectDevice(source)).rejects.toThrow(/Not authorized/);

    const renewed = await connectDevice(source, regenerated.body.mqttApiKey);
    const droppedAgain = closed(renewed);
    await http.delete(`/api/sunsources/${source.id}`).set('Cookie', cookie).expect(204);
    await droppedAgain;
  });

  it("drops the live devices of an account's sources when an administrator deletes the account", async () => {
    const owner = await signUp(http, harness.env.mail);
    const source = await createSource(owner.cookie);
    const device = await connectDevice(source);
    const dropped = closed(device);
    const admin = await logIn(http, 'root@example.com', 'Root-Pass-123');
    await http.delete(`/api/admin/users/${owner.id}`).set('Cookie', admin).expect(204);
    await dropped;
    await expect(connectDevice(source)).rejects.toThrow(/Not authorized/);
  });

  it('checks a publish once per topic and connection, as EMQX caches authorization', async () => {
    const source = await createSource();
    const asked = jest.spyOn(harness.ingestor.get(DeviceAuthService), 'authorize');
    try {
      const device = await connectDevice(source);
      const start = Date.now() - 3600_000;
      for (let i = 0; i < 5; i++) {
        await device.publishAsync(
          source.topic,
          JSON.stringify({ soc: 50 + i, timestamp: at(start + i * 10_000) }),
          {
            qos: 1,
          },
        );
      }
      await waitFor(async () => (await rows(source.id)).length === 5, 'five rows');
      expect(asked).toHaveBeenCalledTimes(1);
      await device.endAsync();
      // The cache dies with the connection: a new one asks again.
      const again = await connectDevice(source);
      await again.publishAsync(source.topic, JSON.stringify({ soc: 60, timestamp: at(start + 60_000) }), {
        qos: 1,
      });
      expect(asked).toHaveBeenCalledTimes(2);
      await waitFor(async () => (await rows(source.id)).length === 6, 'the sixth row');
    } finally {
      asked.mockRestore();
    }
  });

  it('stores a retained publish of a device, but retains nothing: no device may subscribe', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    await device.publishAsync(source.topic, JSON.stringify({ soc: 33 }), { qos: 1, retain: true });
    expect((await rows(source.id)).map((row) => row.state_of_charge)).toEqual([33]);
    // A retained copy would reach a new subscription at once.
    const watcher = await connectSuperuser();
    const received: string[] = [];
    watcher.on('message', (topic) => received.push(topic));
    await watcher.subscribeAsync(source.topic, { qos: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toEqual([]);
  });

  it('ignores unknown sources and foreign topics, and keeps working', async () => {
    const publisher = await connectSuperuser();
    const unknown = randomUUID();
    const before = outcomes();
    await publisher.publishAsync(`solar/sources/${unknown}/data`, JSON.stringify({ soc: 5 }), { qos: 1 });
    await publisher.publishAsync(`sunsource/${unknown}/data`, JSON.stringify({ soc: 6 }), { qos: 1 });
    await publisher.publishAsync('solar/sources/not-a-uuid/data', JSON.stringify({ soc: 7 }), { qos: 1 });
    await publisher.publishAsync('other/topic', JSON.stringify({ soc: 8 }), { qos: 1 });
    expect(await handledSince(before, 3)).toMatchObject({ ignored: 3, stored: 0 });
    expect(await rows(unknown)).toEqual([]);

    const source = await createSource();
    const device = await connectDevice(source);
    await device.publishAsync(source.topic, JSON.stringify({ soc: 42 }), { qos: 1 });
    await waitFor(async () => (await rows(source.id)).length === 1, 'the valid message stored');
  });

  it("ignores a switched-off source's messages, and takes them again as soon as it is switched on", async () => {
    const source = await createSource();
    const publisher = await connectSuperuser();
    const switchTo = (isActive: boolean) =>
      http.put(`/api/sunsources/${source.id}`).set('Cookie', cookie).send({ isActive }).expect(200);
    await publisher.publishAsync(source.topic, JSON.stringify({ soc: 19, ts: at(Date.now() - 60_000) }), {
      qos: 1,
    });
    await waitFor(async () => (await rows(source.id)).length === 1, 'the first row');
    await switchTo(false);
    const before = outcomes();
    await publisher.publishAsync(source.topic, JSON.stringify({ soc: 20, ts: at(Date.now() - 30_000) }), {
      qos: 1,
    });
    expect(await handledSince(before, 1)).toMatchObject({ ignored: 1 });
    expect(await rows(source.id)).toHaveLength(1);

    await switchTo(true);
    await publisher.publishAsync(source.topic, JSON.stringify({ soc: 21, ts: at(Date.now()) }), { qos: 1 });
    await waitFor(async () => (await rows(source.id)).length === 2, 'the row');
    expect((await rows(source.id))[1].state_of_charge).toBe(21);
  });

  it('throttles (one row per 10 s of device time) and drops duplicates and junk', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    const start = Date.now() - 120_000;
    const first = JSON.stringify({ soc: 50, timestamp: at(start) });
    const before = outcomes();
    await device.publishAsync(source.topic, first, { qos: 1 });
    await handledSince(before, 1);
    await device.publishAsync(source.topic, JSON.stringify({ soc: 51, timestamp: at(start + 1000) }), {
      qos: 1,
    });
    await device.publishAsync(source.topic, first, { qos: 1 });
    await device.publishAsync(source.topic, '{"soc": 5', { qos: 1 });
    await device.publishAsync(source.topic, JSON.stringify({ soc: 52, pad: 'x'.repeat(70 * 1024) }), {
      qos: 1,
    });
    await device.publishAsync(source.topic, JSON.stringify({ unknownField: 1 }), { qos: 1 });
    expect(await handledSince(before, 6)).toEqual({
      stored: 1,
      throttled: 1,
      duplicate: 1,
      overBudget: 0,
      rejected: 3,
      ignored: 0,
      lost: 0,
    });
    const stored = await rows(source.id);
    expect(stored).toHaveLength(1);
    expect(stored[0].state_of_charge).toBe(50);
  });

  it('keeps retrying a message while storage fails, acknowledges it only once stored', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    // Makes every insert of this value fail, as a broken database would.
    await db.query(
      'ALTER TABLE telemetry ADD CONSTRAINT test_refuse_marker CHECK (state_of_charge IS DISTINCT FROM 12.5)',
    );
    const before = outcomes();
    let acknowledged = false;
    const published = device
      .publishAsync(source.topic, JSON.stringify({ soc: 12.5 }), { qos: 1 })
      .then(() => (acknowledged = true));
    try {
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(handled(outcomes())).toBe(handled(before));
      expect(acknowledged).toBe(false);
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT test_refuse_marker');
    }
    await published;
    expect(await handledSince(before, 1)).toMatchObject({ stored: 1, lost: 0 });
    expect((await rows(source.id)).map((row) => row.state_of_charge)).toEqual([12.5]);
  });

  it('acknowledges at once, as rejected, a message whose values the database refuses, and goes on', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    // What a value the database cannot compute with raises (SQLSTATE 22003), as a trigger.
    await db.query(`
      CREATE FUNCTION test_refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state_of_charge = 12.5 THEN
          RAISE EXCEPTION 'value out of range: underflow' USING ERRCODE = '22003';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_refuse_marked BEFORE INSERT ON telemetry
        FOR EACH ROW EXECUTE FUNCTION test_refuse_marked();`);
    const before = outcomes();
    const start = Date.now() - 60_000;
    try {
      await device.publishAsync(source.topic, JSON.stringify({ soc: 12.5, timestamp: at(start) }), {
        qos: 1,
      });
      expect(await handledSince(before, 1)).toMatchObject({ stored: 0, rejected: 1, lost: 0 });
    } finally {
      await db.query('DROP TRIGGER test_refuse_marked ON telemetry; DROP FUNCTION test_refuse_marked()');
    }
    // Also a power too small for any meter: read as 0, stored, never near the database's refusal.
    for (const [offset, payload] of [
      [20_000, { solarPower: 0 }],
      [40_000, { solarPower: 5e-324 }],
    ] as const) {
      await device.publishAsync(source.topic, JSON.stringify({ ...payload, timestamp: at(start + offset) }), {
        qos: 1,
      });
    }
    expect((await rows(source.id)).map((row) => row.solar_power)).toEqual([0, 0]);
  });

  // Last: it closes the ingestor.
  it('loses nothing acknowledged on shutdown (app.close, the path SIGTERM takes)', async () => {
    const source = await createSource();
    const device = await connectDevice(source);
    const start = Date.now() - 3 * DAY_MS;
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        device.publishAsync(
          source.topic,
          JSON.stringify({ soc: i % 100, timestamp: at(start + i * 10_000) }),
          { qos: 1 },
        ),
      ),
    );
    await harness.stopIngestor();
    const { rows: count } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1',
      [source.id],
    );
    expect(count[0].n).toBe(200);
  });
});
