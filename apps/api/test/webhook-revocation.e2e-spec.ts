import { Client } from 'pg';
import { ApiWithUser, createWebhookSource, Http, startApiWithUser } from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { postTelemetry } from './support/api-harness';

const ACCEPTED = { message: 'Data accepted', stored: true };
const NOT_FOUND = { message: 'Sun source not found' };

/**
 * The webhook asks the announced cache whether the source is an active Webhook source; the
 * write asks the database again. A change no one announced (made in the database) is therefore
 * still honoured from the very next message, though the cache has not heard of it.
 */
describe('webhook ingestion of a source revoked behind the cache', () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let cookie: string;

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp);
    ({ http, db, cookie } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  const rows = async (id: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1', [id]))
      .rows[0].n;

  it.each([
    ['switched off', `UPDATE sun_sources SET is_active = false WHERE id = $1`],
    [
      'made an MQTT source',
      `UPDATE sun_sources SET connection_type = 'MQTT', webhook_secret_encrypted = NULL,
              mqtt_api_key_encrypted = 'sealed elsewhere' WHERE id = $1`,
    ],
  ])('%s: 404 and nothing stored, from the next message on', async (_case, change) => {
    const source = await createWebhookSource(http, cookie);
    const send = (minutesAgo: number) =>
      postTelemetry(http, source, {
        soc: 50,
        timestamp: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      });
    // The first messages put the source in the cache as an active Webhook source.
    expect((await send(10).expect(200)).body).toEqual(ACCEPTED);
    expect((await send(9).expect(200)).body).toEqual(ACCEPTED);
    await db.query(change, [source.id]);
    expect((await send(5).expect(404)).body).toEqual(NOT_FOUND);
    expect(await rows(source.id)).toBe(2);
  });
});
