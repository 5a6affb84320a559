import { Readable } from 'node:stream';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@solar/database';
import { createTestDatabase, insertSpecSources, insertSpecUser } from '@solar/testing';
import { EXPORT_SETTINGS, ROWS_SQL, TelemetryExportRepository } from './telemetry-export.repository';

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
  let databaseUrl: string;
  let db: Client;
  let sourceId: string;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    databaseUrl = database.url;
    db = new Client({ connectionString: database.url });
    await db.connect();
    const userId = await insertSpecUser(db);
    const sources = await insertSpecSources(db, userId, SOURCES);
    sourceId = sources[0];
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

  describe('its transaction', () => {
    let dataSource: DataSource;
    let repository: TelemetryExportRepository;
    const range = () => ({
      sunSourceId: sourceId,
      from: new Date(START),
      to: new Date(START + POINTS * 30 * MINUTE),
      limit: 500_000,
    });

    beforeAll(async () => {
      dataSource = await new DataSource(dataSourceOptions(databaseUrl)).initialize();
      repository = new TelemetryExportRepository(dataSource);
    });

    afterAll(async () => {
      await dataSource.destroy();
    });

    /** Reads the rows one at a time, pausing `pauseMs` after every `every` rows. */
    async function readSlowly(rows: Readable, every: number, pauseMs: number): Promise<number> {
      let count = 0;
      for await (const _row of rows) {
        if (++count % every === 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      return count;
    }

    it('times each fetch, not the whole read: a read longer than statement_timeout completes', async () => {
      const { rows } = await repository.open(range(), {
        statementSeconds: 0.3,
        idleInTransactionSeconds: 10,
      });

      const started = Date.now();
      expect(await readSlowly(rows, 50, 50)).toBe(POINTS);
      expect(Date.now() - started).toBeGreaterThan(1_000);
    });

    it('is ended by the server when left idle past idle_in_transaction_session_timeout', async () => {
      const { rows } = await repository.open(range(), { statementSeconds: 1, idleInTransactionSeconds: 1 });
      const failure = new Promise((resolve) => rows.once('error', resolve));
      rows.pause();
      await new Promise((resolve) => setTimeout(resolve, 1_500));

      const { rows: open } = await db.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
      );
      expect(open).toEqual([]);
      rows.resume();
      expect(await failure).toBeInstanceOf(Error);
    });
  });
});
