import { Logger } from '@nestjs/common';
import { AppConfig } from '@solar/config';
import { ServiceUnavailableError } from '@solar/core';
import { SourceAccess, SourceAccessCache, SourceCredentials } from '@solar/domain';
import { IngestOutcome, MAX_TELEMETRY_BYTES, TelemetryIngestion, TelemetryIntake } from '@solar/telemetry';
import { MqttTelemetryConsumer } from './mqtt-telemetry-consumer.service';

const ID = '0b6f5c1e-8d0a-4c55-9a53-2f1f1d1f6a10';
const TOPIC = `solar/sources/${ID}/data`;
const config = { mqtt: { topicPrefix: 'solar' }, limits: { mqttMaxInFlight: 2 } } as AppConfig;

/** Storage that fails `failures` times, then stores; and a source list. */
function consumerWith(options: { failures?: number; known?: string[] } = {}) {
  let failures = options.failures ?? 0;
  const ingested: unknown[] = [];
  const ingestion = {
    ingest: async (_id: string, payload: unknown): Promise<IngestOutcome> => {
      if (failures > 0) {
        failures -= 1;
        throw new ServiceUnavailableError('storage down');
      }
      ingested.push(payload);
      return { status: 'stored' };
    },
  } as unknown as TelemetryIngestion;
  const sources = {
    admitted: async (id: string) => ((options.known ?? [ID]).includes(id) ? ({ id } as SourceAccess) : null),
  } as unknown as SourceAccessCache;
  const intake = new TelemetryIntake(sources, {} as SourceCredentials, ingestion);
  return { consumer: new MqttTelemetryConsumer(intake, config), ingested };
}

const message = (payload: string | Buffer, topic = TOPIC) => ({
  topic,
  payload: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
  receivedAt: new Date(),
});

describe('MqttTelemetryConsumer', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('ingests JSON for a known source, and sorts out the rest', async () => {
    const { consumer, ingested } = consumerWith();
    await consumer.consume(message('{"soc": 50}'));
    await consumer.consume(message('{"soc": 50}', 'other/topic'));
    await consumer.consume(message('{"soc": 50}', `solar/sources/${ID.replace('0b', 'ff')}/data`));
    await consumer.consume(message('{"soc": '));
    await consumer.consume(message(Buffer.alloc(MAX_TELEMETRY_BYTES + 1, 0x20)));
    expect(ingested).toEqual([{ soc: 50 }]);
    expect(consumer.outcomes()).toEqual({
      stored: 1,
      throttled: 0,
      duplicate: 0,
      overBudget: 0,
      rejected: 2,
      ignored: 2,
      lost: 0,
    });
  });

  it('retries while storage is unavailable, then stores once', async () => {
    const { consumer, ingested } = consumerWith({ failures: 2 });
    await consumer.consume(message('{"soc": 51}'));
    expect(ingested).toEqual([{ soc: 51 }]);
    expect(consumer.outcomes()).toMatchObject({ stored: 1, lost: 0 });
  });

  it('at shutdown waits for messages in flight, then gives up on them and counts them lost', async () => {
    const { consumer } = consumerWith({ failures: Number.POSITIVE_INFINITY });
    const consumed = consumer.consume(message('{"soc": 52}'));
    await consumer.settle(150);
    await consumed;
    expect(consumer.outcomes()).toMatchObject({ stored: 0, lost: 1 });
  });

  it('holds at most MQTT_MAX_IN_FLIGHT messages while storage is down, and stores all once it is back', async () => {
    const { consumer, ingested } = consumerWith({ failures: 6 });
    const consumed = [51, 52, 53, 54].map((soc) => consumer.consume(message(`{"soc": ${soc}}`)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(consumer.intake()).toEqual({ inFlight: 2, maxInFlight: 2, paused: true });
    await Promise.all(consumed);
    expect(ingested).toHaveLength(4);
    expect(consumer.intake()).toEqual({ inFlight: 0, maxInFlight: 2, paused: false });
  });

  it('at shutdown returns as soon as nothing is in flight', async () => {
    const { consumer } = consumerWith({ failures: 1 });
    const consumed = consumer.consume(message('{"soc": 53}'));
    const started = Date.now();
    await consumer.settle(10_000);
    expect(Date.now() - started).toBeLessThan(2000);
    await consumed;
    expect(consumer.outcomes()).toMatchObject({ stored: 1, lost: 0 });
  });
});
