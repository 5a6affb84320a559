jest.mock('aedes', () =>
  jest.requireActual<typeof import('./support/native-aedes')>('./support/native-aedes').loadAedesNatively(),
);

import { INestApplication } from '@nestjs/common';
import { connectAsync, MqttClient } from 'mqtt';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { mqttTopic } from '@solar/domain';
import { Http, waitFor } from '@solar/testing';
import { createIngestorApp } from '../src/create-ingestor-app';
import { MqttTelemetryConsumer } from '../src/telemetry/mqtt-telemetry-consumer.service';
import { MessageOutcome, OutcomeCounts } from '../src/telemetry/outcome-tally';
import { ApiOnLoopback, startApiOnLoopback } from './support/api-app';

/** Mosquitto lets anyone publish anywhere: the intake's own checks are all that stand. */
const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';
/** Valid telemetry, only too large: refused for its size alone. */
const OVER_64_KB = JSON.stringify({ soc: 50, note: 'x'.repeat(64 * 1024) });

type Transport = 'Webhook' | 'MQTT';
/** Whose id the messages go to: a source of the transport's own type, or one that must not take them. */
type Target = 'own' | 'unknown' | 'inactive' | 'other type';
/** A telemetry object (the webhook adds its `key`), or raw bytes sent as they are. */
type Message = Record<string, unknown> | { raw: string };

interface IntakeCase {
  name: string;
  target: Target;
  messages: (now: number) => Message[];
  /** The webhook's answers, one per message. */
  webhook: Array<{ status: number; body: unknown }>;
  /** What the ingestor counted for the messages, all of them. */
  mqtt: Partial<Record<MessageOutcome, number>>;
  /** Rows stored for the target source, by either transport. */
  rows: number;
}

const ACCEPTED = { status: 200, body: { message: 'Data accepted', stored: true } };
const NOT_FOUND = { status: 404, body: { message: 'Sun source not found' } };
/**
 * To a source that may not take them: the source is checked before anything is read of the
 * message, so a malformed one is answered as a valid one is, and the write's own refusal
 * (which would answer the valid one alike) is not what answers.
 */
const UNREAD: Message[] = [{ soc: 50 }, { raw: '{"soc": ' }];
const at = (ms: number) => new Date(ms).toISOString();

const CASES: IntakeCase[] = [
  {
    name: 'stored',
    target: 'own',
    messages: () => [{ soc: 50 }],
    webhook: [ACCEPTED],
    mqtt: { stored: 1 },
    rows: 1,
  },
  {
    name: 'throttled',
    target: 'own',
    messages: (now) => [
      { soc: 50, timestamp: at(now - 60_000) },
      { soc: 51, timestamp: at(now - 55_000) },
    ],
    webhook: [
      ACCEPTED,
      { status: 200, body: { message: 'Data accepted', stored: false, reason: 'throttled' } },
    ],
    mqtt: { stored: 1, throttled: 1 },
    rows: 1,
  },
  {
    name: 'duplicate',
    target: 'own',
    messages: (now) => [
      { soc: 50, timestamp: at(now - 60_000) },
      { soc: 50, timestamp: at(now - 60_000) },
    ],
    webhook: [ACCEPTED, { status: 409, body: { message: 'Duplicate message' } }],
    mqtt: { stored: 1, duplicate: 1 },
    rows: 1,
  },
  {
    name: 'malformed JSON',
    target: 'own',
    messages: () => [{ raw: '{"soc": ' }],
    webhook: [{ status: 400, body: { message: 'Malformed JSON body' } }],
    mqtt: { rejected: 1 },
    rows: 0,
  },
  {
    name: 'oversize',
    target: 'own',
    messages: () => [{ raw: OVER_64_KB }],
    webhook: [{ status: 413, body: { message: 'Request body too large' } }],
    mqtt: { rejected: 1 },
    rows: 0,
  },
  {
    name: 'meaningless',
    target: 'own',
    messages: () => [{ colour: 'blue' }],
    webhook: [{ status: 400, body: { message: 'No valid telemetry fields' } }],
    mqtt: { rejected: 1 },
    rows: 0,
  },
  {
    name: 'unknown source',
    target: 'unknown',
    messages: () => UNREAD,
    webhook: [NOT_FOUND, NOT_FOUND],
    mqtt: { ignored: 2 },
    rows: 0,
  },
  {
    name: 'inactive source',
    target: 'inactive',
    messages: () => UNREAD,
    webhook: [NOT_FOUND, NOT_FOUND],
    mqtt: { ignored: 2 },
    rows: 0,
  },
  {
    name: 'source of the other transport',
    target: 'other type',
    messages: () => UNREAD,
    webhook: [NOT_FOUND, NOT_FOUND],
    mqtt: { ignored: 2 },
    rows: 0,
  },
];

/**
 * The intake's behaviour is one table, run through both transports: the same message meets the
 * same fate whether a device posts it to the webhook or publishes it over MQTT; only the way
 * each transport answers differs (an HTTP status and body; the ingestor's tally and a row).
 */
describe('one intake, both transports', () => {
  let api: ApiOnLoopback;
  let http: Http;
  let ingestor: INestApplication;
  let publisher: MqttClient;
  let topicPrefix: string;
  let db: Client;
  let cookie: string;

  beforeAll(async () => {
    topicPrefix = `intake-${randomBytes(4).toString('hex')}`;
    api = await startApiOnLoopback({ env: { MQTT_TOPIC_PREFIX: topicPrefix } });
    ({ http, db, cookie } = api);
    // A group of its own gives this ingestor a client id of its own on the shared broker.
    ingestor = await createIngestorApp(
      api.env.configWith({
        PORT: String(api.apiPort),
        MQTT_URL: MOSQUITTO_URL,
        MQTT_SHARED_GROUP: topicPrefix,
      }),
    );
    await ingestor.startAllMicroservices();
    publisher = await connectAsync(MOSQUITTO_URL, { reconnectPeriod: 0, connectTimeout: 5000 });
  });

  afterAll(async () => {
    await publisher?.endAsync(true);
    await ingestor?.close();
    await api?.close();
  });

  async function createSource(type: Transport): Promise<{ id: string; secret: string }> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: `${type} source`, connectionType: type })
      .expect(201);
    return { id: created.body.id, secret: created.body.connectionDetails.webhookSecret ?? 'none' };
  }

  async function targetOf(transport: Transport, target: Target): Promise<{ id: string; secret: string }> {
    if (target === 'unknown') return { id: randomUUID(), secret: 'none' };
    const source = await createSource(target === 'other type' ? otherThan(transport) : transport);
    if (target === 'inactive') {
      await http
        .put(`/api/sunsources/${source.id}`)
        .set('Cookie', cookie)
        .send({ isActive: false })
        .expect(200);
    }
    return source;
  }

  const otherThan = (transport: Transport): Transport => (transport === 'MQTT' ? 'Webhook' : 'MQTT');
  const rowCount = async (id: string) =>
    Number((await db.query('SELECT count(*) AS n FROM telemetry WHERE sun_source_id = $1', [id])).rows[0].n);
  const outcomes = (): OutcomeCounts => ingestor.get(MqttTelemetryConsumer).outcomes();
  const handled = (counts: OutcomeCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

  function bytesOf(message: Message, key?: string): string {
    if ('raw' in message) return message.raw as string;
    return JSON.stringify(key === undefined ? message : { ...message, key });
  }

  it.each(CASES)('webhook: $name', async (intakeCase) => {
    const source = await targetOf('Webhook', intakeCase.target);
    const answers: Array<{ status: number; body: unknown }> = [];
    for (const message of intakeCase.messages(Date.now())) {
      const response = await http
        .post(`/api/webhook/sunsource/${source.id}`)
        .set('Content-Type', 'application/json')
        .send(bytesOf(message, source.secret));
      answers.push({ status: response.status, body: response.body });
    }
    expect(answers).toEqual(intakeCase.webhook);
    expect(await rowCount(source.id)).toBe(intakeCase.rows);
  });

  it.each(CASES)('MQTT: $name', async (intakeCase) => {
    const source = await targetOf('MQTT', intakeCase.target);
    const topic = mqttTopic(topicPrefix, source.id);
    const before = outcomes();
    const messages = intakeCase.messages(Date.now());
    for (const [index, message] of messages.entries()) {
      await publisher.publishAsync(topic, bytesOf(message), { qos: 1 });
      // One at a time, as the webhook's: the second of a pair meets the first's windows.
      await waitFor(() => handled(outcomes()) >= handled(before) + index + 1, 'the message handled');
    }
    const after = outcomes();
    const counted = Object.fromEntries(
      Object.entries(after)
        .map(([outcome, n]) => [outcome, n - before[outcome as MessageOutcome]])
        .filter(([, n]) => n !== 0),
    );
    expect(counted).toEqual(intakeCase.mqtt);
    expect(await rowCount(source.id)).toBe(intakeCase.rows);
  });
});
