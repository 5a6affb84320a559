import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { createTestDatabase } from '@solar/testing';
import { dataSourceOptions } from './data-source-options';
import { pgPool, plannedOnce, PreparedQueries } from './prepared-queries';

const SETTINGS = `SELECT current_setting('plan_cache_mode') AS "planCacheMode",
                         current_setting('extra_float_digits') AS "floatDigits",
                         current_setting('application_name') AS "applicationName", $1::int AS "n"`;
const SETTINGS_PLANNED_ONCE = plannedOnce(`${SETTINGS} -- planned once`);

describe('PreparedQueries and plannedOnce statements', () => {
  let drop: () => Promise<void>;
  let url: string;
  let dataSource: DataSource;
  let prepared: PreparedQueries;

  const connectionsToTheDatabase = async (): Promise<number> => {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    await admin.end();
    return rows[0].count;
  };

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    dataSource = await new DataSource(dataSourceOptions(url)).initialize();
    prepared = new PreparedQueries(dataSource);
  });

  afterAll(() => drop());

  it('runs a marked statement where PostgreSQL keeps its generic plan, with the data source’s other settings', async () => {
    const [marked] = await prepared.query(SETTINGS_PLANNED_ONCE, [7]);
    const [plain] = await prepared.query(SETTINGS, [7]);

    expect(marked).toEqual({
      planCacheMode: 'force_generic_plan',
      floatDigits: '1',
      applicationName: 'solar',
      n: 7,
    });
    expect(plain).toEqual({ planCacheMode: 'auto', floatDigits: '1', applicationName: 'solar', n: 7 });
  });

  it('marks for encoded and streamed reads too', async () => {
    const text = plannedOnce(
      `SELECT to_json(current_setting('plan_cache_mode'))::text FROM generate_series(1, $1::int)`,
    );

    expect((await prepared.queryJson(text, [2])).toString('utf8')).toBe(
      '["force_generic_plan","force_generic_plan"]',
    );
    const chunks: Buffer[] = [];
    for await (const chunk of await prepared.streamJson(text, [1])) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('["force_generic_plan"]');
  });

  it('closes its own connections when the app shuts down', async () => {
    expect(await connectionsToTheDatabase()).toBeGreaterThanOrEqual(2);

    await prepared.onApplicationShutdown();
    await dataSource.destroy();

    // A backend leaves pg_stat_activity a moment after its client has gone.
    let open = await connectionsToTheDatabase();
    for (let waited = 0; open > 0 && waited < 2_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = await connectionsToTheDatabase();
    }
    expect(open).toBe(0);
  });

  it('warms up: every connection of the pool open, the statements prepared on each', async () => {
    const fresh = await new DataSource(dataSourceOptions(url)).initialize();
    try {
      const text = 'SELECT $1::int + 1 AS "next" -- warmed';
      await new PreparedQueries(fresh).warmUp([{ text, values: [0] }]);

      const pool = pgPool(fresh);
      expect(pool.totalCount).toBe(10);
      const clients = await Promise.all(Array.from({ length: 10 }, () => pool.connect()));
      try {
        const prepared = await Promise.all(
          clients.map(async (client) => {
            const { rows } = await client.query<{ statement: string }>(
              'SELECT statement FROM pg_prepared_statements',
            );
            return rows.map((row) => row.statement);
          }),
        );
        expect(prepared).toEqual(Array.from({ length: 10 }, () => [text]));
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await fresh.destroy();
    }
  });
});
