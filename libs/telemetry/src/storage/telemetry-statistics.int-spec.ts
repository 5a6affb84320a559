import { Client } from 'pg';
import { createTestDatabase, insertSpecSources, insertSpecUser } from '@solar/testing';

/** The columns queries select telemetry rows by: the only ones ANALYZE keeps statistics on. */
const FILTERED_COLUMNS = [
  'daily_energy_consumed',
  'daily_energy_produced',
  'load_power',
  'operating_mode',
  'received_at',
  'solar_power',
  'sun_source_id',
  'total_energy_produced',
  'ts',
];

/**
 * Autovacuum analyzes the month's partition while it fills and the hourly rollup while batches
 * update it; statistics on columns no plan reads (the payload above all) would only make that
 * slower.
 */
describe('the telemetry tables', () => {
  let drop: () => Promise<void>;
  let url: string;
  let db: Client;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = new Client({ connectionString: url });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
    await drop();
  });

  /** The columns of `table` that ANALYZE gathers statistics on, by name. */
  async function columnsWithStatistics(table: string): Promise<string[]> {
    const { rows } = await db.query<{ attname: string }>(
      `SELECT attname FROM pg_attribute
        WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attstattarget <> 0
        ORDER BY attname`,
      [table],
    );
    return rows.map((row) => row.attname);
  }

  it('make a new partition with statistics only on the columns queries select rows by', async () => {
    await db.query(`SELECT ensure_telemetry_partition(date '2026-07-14')`);

    expect(await columnsWithStatistics('telemetry_p202607')).toEqual(FILTERED_COLUMNS);
    // The same targets as the partitioned table's.
    expect(await columnsWithStatistics('telemetry')).toEqual(FILTERED_COLUMNS);
  });

  it('analyze a partition into statistics of those columns alone', async () => {
    const [source] = await insertSpecSources(db, await insertSpecUser(db), 1);
    await db.query(`SELECT ensure_telemetry_partition(date '2026-08-01')`);
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, solar_power, battery_voltage, fault_codes, raw)
       SELECT $1, timestamptz '2026-08-01 00:00Z' + n * interval '10 seconds', n, 48 + n % 3,
              ARRAY['F' || n % 5], jsonb_build_object('n', n)
         FROM generate_series(1, 500) AS n`,
      [source],
    );

    await db.query('ANALYZE telemetry_p202608');

    const { rows } = await db.query<{ attname: string }>(
      `SELECT attname FROM pg_stats WHERE tablename = 'telemetry_p202608' ORDER BY attname`,
    );
    expect(rows.map((row) => row.attname)).toEqual(FILTERED_COLUMNS);
  });

  it('give those statistics to a partition several sessions create at once', async () => {
    const sessions = [0, 1, 2].map(() => new Client({ connectionString: url }));
    await Promise.all(sessions.map((session) => session.connect()));
    try {
      await Promise.all(
        sessions.map((session) => session.query(`SELECT ensure_telemetry_partition(date '2026-09-01')`)),
      );
    } finally {
      await Promise.all(sessions.map((session) => session.end()));
    }

    expect(await columnsWithStatistics('telemetry_p202609')).toEqual(FILTERED_COLUMNS);
  });

  it('keep statistics of the hourly rollup only on the columns queries select hours by', async () => {
    expect(await columnsWithStatistics('telemetry_hourly')).toEqual([
      'first_daily_energy_consumed',
      'first_daily_energy_produced',
      'hour',
      'last_daily_energy_consumed',
      'last_daily_energy_produced',
      'sun_source_id',
    ]);
  });
});
