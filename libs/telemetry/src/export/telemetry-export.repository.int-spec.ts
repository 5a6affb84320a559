import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase } from '@solar/testing';
import { EXPORT_SETTINGS, ROWS_SQL } from './telemetry-export.repository';

const MINUTE = 60_000;
const SOURCES = 20;
const POINTS = 1500;
const START = Date.UTC(2026, 9, 20);

interface PlanNode {
  'Node Type': string;
  Plans?: PlanNode[];
}

const nodeTypes = (node: PlanNode): string[] => [node['Node Type'], ...(node.Plans ?? []).flatMap(nodeTypes)];

/**
 * The export's rows must leave in order from the first one. Planned for all of them, PostgreSQL
 * prefers reading the source's rows in any order and sorting them all first (here as on a month
 * of 10-second data), which holds the first byte until the whole range has been read.
 */
describe('the export cursor plan', () => {
  let drop: () => Promise<void>;
  let db: Client;
  let sourceId: string;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new Client({ connectionString: database.url });
    await db.connect();
    const userId = randomUUID();
    await db.query(
      `INSERT INTO users (id, email, password_hash, roles, email_verified)
       VALUES ($1, $2, 'not-a-hash', ARRAY['User'], true)`,
      [userId, `${userId}@example.com`],
    );
    const sources = Array.from({ length: SOURCES }, () => randomUUID());
    sourceId = sources[0];
    await db.query(
      `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted)
       SELECT id, $2, 'Export', 'Webhook', 'sealed' FROM unnest($1::uuid[]) AS id`,
      [sources, userId],
    );
    // The sources' points interleaved in time, across two monthly partitions, as devices send them.
    for (const month of ['2026-10-01', '2026-11-01'])
      await db.query('SELECT ensure_telemetry_partition($1::date)', [month]);
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, solar_power, raw)
       SELECT s, to_timestamp(($2::float8 + i * $3::float8) / 1000), i, '{}'
         FROM generate_series(0, $4 - 1) AS i, unnest($1::uuid[]) AS s`,
      [sources, START, 30 * MINUTE, POINTS],
    );
    await db.query('ANALYZE telemetry');
  });

  afterAll(async () => {
    await db.end();
    await drop();
  });

  async function planOf(settings: string): Promise<string[]> {
    await db.query(`BEGIN; ${settings}`);
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (FORMAT JSON) ${ROWS_SQL}`,
        [sourceId, new Date(START), new Date(START + POINTS * 30 * MINUTE), 500_000],
      );
      return nodeTypes(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await db.query('ROLLBACK');
    }
  }

  it('sorts the whole range first when left to itself', async () => {
    expect(await planOf('SELECT 1')).toContain('Sort');
  });

  it('reads the rows in order from the primary keys under the export settings', async () => {
    const plan = await planOf(EXPORT_SETTINGS);

    expect(plan).not.toContain('Sort');
    expect(plan.filter((type) => type === 'Index Scan')).toHaveLength(2);
  });
});
