import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createTestDatabase, testConfig } from '@solar/testing';
import { DatabaseModule } from './database.module';
import { dataSourceOptions, LONG_STATEMENT_TIMEOUT } from './data-source-options';

/**
 * Answers and exports send PostgreSQL's text of a double as it is: it must read back as the
 * stored double, whatever a database administrator made the server's default.
 */
describe('the data source connections', () => {
  let drop: () => Promise<void>;
  let url: string;
  let dataSource: DataSource | undefined;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    const admin = new Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ name: string }>('SELECT current_database() AS name');
    // 0 writes 15 significant digits: 0.1 + 0.2 would read back as 0.3.
    await admin.query(`ALTER DATABASE "${rows[0].name}" SET extra_float_digits = 0`);
    await admin.end();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await drop();
  });

  it('write doubles as the shortest text that reads back exactly', async () => {
    const plain = new Client({ connectionString: url });
    await plain.connect();
    const { rows: server } = await plain.query<{ text: string }>('SELECT (0.1::float8 + 0.2)::text AS text');
    await plain.end();
    dataSource = await new DataSource(dataSourceOptions(url)).initialize();

    const [ours] = await dataSource.query<Array<{ text: string }>>(
      'SELECT (0.1::float8 + 0.2)::text AS text',
    );

    expect(server[0].text).toBe('0.3');
    expect(ours.text).toBe(String(0.1 + 0.2));
  });

  it("give an app's statements the configured statement_timeout, and migrations none", async () => {
    const config = testConfig({ DATABASE_URL: url, DB_STATEMENT_TIMEOUT_SECONDS: '1' });
    const module = await Test.createTestingModule({ imports: [DatabaseModule.forRoot(config)] }).compile();
    const app = module.get(DataSource);
    const migrations = await new DataSource(dataSourceOptions(url)).initialize();
    try {
      const [ours] = await app.query<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
      const [theirs] = await migrations.query<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
      const longer = await app.transaction(async (manager) => {
        await manager.query(LONG_STATEMENT_TIMEOUT);
        return manager.query<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
      });

      expect(ours.statement_timeout).toBe('1s');
      expect(theirs.statement_timeout).toBe('0');
      expect(longer[0].statement_timeout).toBe('1h');
      await expect(app.query('SELECT pg_sleep(1.5)')).rejects.toMatchObject({ code: '57014' });
    } finally {
      await migrations.destroy();
      await module.close();
    }
  });
});
