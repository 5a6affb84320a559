jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { AddressInfo } from 'node:net';
import { exportedFamilyNames } from '@solar/monitoring';
import { createMqttSource, metricGrowth, scrapeMetrics, waitFor } from '@solar/testing';
import { IngestorWithApi, startIngestorWithApi } from './support/ingestor-harness';
import { deviceLogin, MqttClients } from './support/mqtt-devices';

const mqtt = (outcome: string) => ({ channel: 'mqtt', outcome });
const STAGE_COUNT = 'solar_telemetry_stage_duration_seconds_count';

describe("the ingestor's Prometheus metrics", () => {
  let harness: IngestorWithApi;
  let base: string;
  const devices = new MqttClients();

  beforeAll(async () => {
    harness = await startIngestorWithApi();
    await harness.ingestor.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(harness.ingestor.getHttpServer().address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await devices.endAll();
  });

  afterAll(async () => {
    await harness?.close();
  });

  const scrape = () => scrapeMetrics(`${base}/metrics`);

  it('serves every family at GET /metrics on its own port, beside its health check', async () => {
    const metrics = await scrape();
    expect(metrics.status).toBe(200);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect([...metrics.families].sort()).toEqual(exportedFamilyNames().sort());
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
  });

  it('counts a message published through the embedded broker, and the device while it is connected', async () => {
    const source = await createMqttSource(harness.http, harness.cookie);
    const before = await scrape();
    const device = await devices.connect(harness.brokerUrl, deviceLogin(source));
    await device.publishAsync(source.topic, JSON.stringify({ soc: 70 }), { qos: 1 });
    const connected = await scrape();
    expect(connected.value('solar_mqtt_devices_connected')).toBe(1);
    expect(metricGrowth(before, connected, 'solar_mqtt_connects_total', { verdict: 'device' })).toBe(1);
    expect(metricGrowth(before, connected, 'solar_telemetry_messages_total', mqtt('stored'))).toBe(1);
    expect(metricGrowth(before, connected, 'solar_telemetry_ingestion_lag_seconds_count')).toBe(1);
    for (const stage of ['source', 'windows', 'write'])
      expect({ stage, count: metricGrowth(before, connected, STAGE_COUNT, { stage }) }).toEqual({
        stage,
        count: 1,
      });
    expect(connected.value('solar_telemetry_messages_in_flight', { channel: 'mqtt' })).toBe(0);

    await devices.endAll();
    await waitFor(async () => (await scrape()).value('solar_mqtt_devices_connected') === 0, 'device gone');
  });

  it('counts refused connections and refused messages by reason', async () => {
    const source = await createMqttSource(harness.http, harness.cookie);
    const before = await scrape();
    await expect(devices.connect(harness.brokerUrl, deviceLogin(source, 'wrong-key'))).rejects.toThrow();
    const device = await devices.connect(harness.brokerUrl, deviceLogin(source));
    await device.publishAsync(source.topic, '{"soc": ', { qos: 1 });
    await device.publishAsync(source.topic, JSON.stringify({ nothing: 'useful' }), { qos: 1 });
    const after = await scrape();
    expect(metricGrowth(before, after, 'solar_mqtt_connects_total', { verdict: 'deny' })).toBe(1);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', mqtt('refused'))).toBe(2);
    const reason = (name: string) => ({ channel: 'mqtt', reason: name });
    expect(metricGrowth(before, after, 'solar_telemetry_refused_messages_total', reason('malformed'))).toBe(
      1,
    );
    expect(
      metricGrowth(before, after, 'solar_telemetry_refused_messages_total', reason('no_valid_fields')),
    ).toBe(1);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', mqtt('stored'))).toBe(0);
  });
});
