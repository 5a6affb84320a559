import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SecretBox } from '@solar/core';
import { generateMqttApiKey, generateWebhookSecret } from '@solar/domain';

export interface SeededSource {
  id: string;
  /** The MQTT key or the webhook secret, in clear. */
  secret: string;
}

/** A bench user owning every source. */
export async function insertUser(client: Client): Promise<string> {
  const id = randomUUID();
  await client.query(
    `INSERT INTO users (id, email, password_hash, roles, email_verified) VALUES ($1, $2, 'not-a-hash', ARRAY['User'], true)`,
    [id, `bench-${id.slice(0, 8)}@example.com`],
  );
  return id;
}

/**
 * `count` sources of one connection type, inserted in batches, with credentials sealed and
 * digested exactly as the api stores them (`SecretBox`, context `{id}:mqttApiKey` or
 * `{id}:webhookSecret`).
 */
export async function insertSources(
  client: Client,
  box: SecretBox,
  userId: string,
  type: 'MQTT' | 'Webhook',
  count: number,
  label: string,
): Promise<SeededSource[]> {
  const sources: SeededSource[] = [];
  const BATCH = 2000;
  // As the api stores a new source's credential: sealed, with its digest where the schema has
  // one (an earlier build's, run with --app-root, may not).
  const [sealedColumn, digestColumn] =
    type === 'MQTT'
      ? ['mqtt_api_key_encrypted', 'mqtt_api_key_digest']
      : ['webhook_secret_encrypted', 'webhook_secret_digest'];
  const withDigest = await hasColumn(client, 'sun_sources', digestColumn);
  for (let offset = 0; offset < count; offset += BATCH) {
    const ids: string[] = [];
    const names: string[] = [];
    const sealed: string[] = [];
    const digests: Buffer[] = [];
    for (let i = offset; i < Math.min(count, offset + BATCH); i += 1) {
      const id = randomUUID();
      const secret = type === 'MQTT' ? generateMqttApiKey() : generateWebhookSecret();
      const context = `${id}:${type === 'MQTT' ? 'mqttApiKey' : 'webhookSecret'}`;
      sources.push({ id, secret });
      ids.push(id);
      names.push(`${label} ${i + 1}`);
      sealed.push(box.seal(secret, context));
      digests.push(box.digest(secret, context));
    }
    await client.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, ${sealedColumn}${withDigest ? `, ${digestColumn}` : ''})
       SELECT u.id, $2, u.name, $3, u.sealed${withDigest ? ', u.digest' : ''}
         FROM unnest($1::uuid[], $4::text[], $5::text[], $6::bytea[]) AS u(id, name, sealed, digest)`,
      [ids, userId, type, names, sealed, digests],
    );
  }
  return sources;
}

async function hasColumn(client: Client, table: string, column: string): Promise<boolean> {
  const { rows } = await client.query(
    'SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2',
    [table, column],
  );
  return rows.length > 0;
}

/** Rows stored for these sources. */
export async function countStored(client: Client, sourceIds: readonly string[]): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = ANY($1::uuid[])',
    [sourceIds],
  );
  return rows[0].n;
}

/** Which of these (source, device timestamp) pairs are stored. */
export async function storedAmong(
  client: Client,
  pairs: ReadonlyArray<{ sourceId: string; ts: number }>,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM telemetry t
       JOIN unnest($1::uuid[], $2::timestamptz[]) AS p(id, ts) ON t.sun_source_id = p.id AND t.ts = p.ts`,
    [pairs.map((pair) => pair.sourceId), pairs.map((pair) => new Date(pair.ts))],
  );
  return rows[0].n;
}
