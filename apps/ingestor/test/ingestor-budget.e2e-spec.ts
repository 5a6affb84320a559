jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { MqttClient } from 'mqtt';
import { createMqttSource, waitFor } from '@solar/testing';
import { MqttTelemetryConsumer } from '../src/telemetry/mqtt-telemetry-consumer.service';
import { OutcomeCounts } from '../src/telemetry/outcome-tally';
import { IngestorWithApi, startIngestorWithApi } from './support/ingestor-harness';
import { deviceLogin, MqttClients } from './support/mqtt-devices';

const BUDGET = 5;

/** The per-source arrival budget over MQTT: past it, a message is refused and counted so. */
describe('the ingestor: the arrival budget of a source', () => {
  let harness: IngestorWithApi;
  const devices = new MqttClients();

  beforeAll(async () => {
    harness = await startIngestorWithApi({ env: { SOURCE_MESSAGE_BUDGET: String(BUDGET) } });
  });

  afterAll(async () => {
    await devices.endAll();
    await harness?.close();
  });

  async function connectedSource(): Promise<{ id: string; topic: string; device: MqttClient }> {
    const source = await createMqttSource(harness.http, harness.cookie);
    const device = await devices.connect(harness.brokerUrl, deviceLogin(source));
    return { id: source.id, topic: source.topic, device };
  }

  const outcomes = (): OutcomeCounts => harness.ingestor.get(MqttTelemetryConsumer).outcomes();
  const handled = (counts: OutcomeCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);
  const rowCount = async (id: string) => {
    const { rows } = await harness.db.query('SELECT count(*) AS n FROM telemetry WHERE sun_source_id = $1', [
      id,
    ]);
    return Number(rows[0].n);
  };

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
