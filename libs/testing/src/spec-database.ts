import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@solar/database';
import { createTestDatabase } from './test-databases';

/** A spec's own migrated database, opened both ways a spec below the HTTP layer uses it. */
export interface SpecDatabase {
  url: string;
  /** For the spec's own SQL: seeding, and reading what the code under test wrote. */
  db: Client;
  /** For the repositories and services under test. */
  dataSource: DataSource;
  /** Closes both connections and drops the database. */
  close(): Promise<void>;
}

export async function openSpecDatabase(): Promise<SpecDatabase> {
  const { url, drop } = await createTestDatabase();
  const db = new Client({ connectionString: url });
  await db.connect();
  const dataSource = await new DataSource(dataSourceOptions(url)).initialize();
  return {
    url,
    db,
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await db.end();
      await drop();
    },
  };
}

/** A verified account written straight into its table, to own a spec's sources; its id. */
export async function insertSpecUser(db: Client): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO users (id, email, password_hash, roles, email_verified)
     VALUES ($1, $2, 'not-a-hash', ARRAY['User'], true)`,
    [id, `${id}@example.com`],
  );
  return id;
}

/**
 * `count` active webhook sources of `userId` written straight into their table (a placeholder
 * where the sealed secret goes: nothing here opens it); their ids.
 */
export async function insertSpecSources(db: Client, userId: string, count = 1): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await db.query(
    `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted)
     SELECT id, $2, 'Spec source', 'Webhook', 'sealed' FROM unnest($1::uuid[]) AS id`,
    [ids, userId],
  );
  return ids;
}
