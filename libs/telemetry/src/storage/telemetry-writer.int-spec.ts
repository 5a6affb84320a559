import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '@solar/database';
import { insertSpecSources, insertSpecUser, openSpecDatabase, SpecDatabase, waitFor } from '@solar/testing';
import { emptyTelemetryValues } from '../telemetry-fields';
import { INSERT_TELEMETRY_SQL } from './telemetry-insert';
import { TelemetryPartitions } from './telemetry-partitions';
import { TelemetryPoint } from './telemetry-point';
import {
  EARLY_BATCH,
  LINGER_MS,
  MAX_BATCH,
  MAX_IN_FLIGHT,
  TelemetryWriter,
  WriteResult,
} from './telemetry-writer';

const START = Date.UTC(2026, 4, 1);

/** The real statements, with each INSERT's size recorded and its start held until `release`. */
class ObservedQueries extends PreparedQueries {
  readonly batchSizes: number[] = [];
  running = 0;
  mostRunning = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
    this.gate = Promise.resolve();
  }

  override async query<T = unknown>(text: string, values: unknown[] = []): Promise<T[]> {
    if (text !== INSERT_TELEMETRY_SQL || String(values[0]) === '{}') return super.query<T>(text, values);
    // The first parameter is the array literal of the points' source ids: one per point.
    this.batchSizes.push(String(values[0]).split(',').length);
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    try {
      await this.gate;
      return await super.query<T>(text, values);
    } finally {
      this.running -= 1;
    }
  }
}

/**
 * The writer's batching: a few points wait out the linger together; under load a batch goes as
 * soon as it is worth a statement, with at most two committing at a time, so that the database
 * commits one while the process fills the next.
 */
describe('TelemetryWriter batches', () => {
  let database: SpecDatabase;
  let db: Client;
  let dataSource: DataSource;
  let queries: ObservedQueries;
  let writer: TelemetryWriter;
  let sunSourceId: string;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    database = await openSpecDatabase();
    ({ db, dataSource } = database);
    [sunSourceId] = await insertSpecSources(db, await insertSpecUser(db));
  });

  beforeEach(async () => {
    queries = new ObservedQueries(dataSource);
    // The month's partition known beforehand, as an app's start makes it: otherwise each batch
    // checks it by a transaction of its own, and they reach the INSERT in whatever order those end.
    const partitions = new TelemetryPartitions(dataSource);
    await partitions.ensureFor([new Date(START)]);
    writer = new TelemetryWriter(dataSource, partitions, queries);
  });

  afterEach(async () => {
    queries.release();
    await writer.drain();
  });

  afterAll(async () => {
    await database?.close();
  });

  let next = 0;
  /** `count` points of one source, ten seconds apart, written in this turn of the event loop. */
  function writeMany(count: number): Promise<WriteResult[]> {
    return Promise.all(
      Array.from({ length: count }, () => {
        const ts = new Date(START + (next += 10_000));
        const values = emptyTelemetryValues();
        values.solarPower = 100;
        const point: TelemetryPoint = { sunSourceId, ts, receivedAt: ts, values, raw: { solarPower: 100 } };
        return writer.write(point);
      }),
    );
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('writes a few points together once the linger ends', async () => {
    const results = writeMany(3);
    expect(queries.batchSizes).toEqual([]);
    expect(await results).toEqual(['stored', 'stored', 'stored']);
    expect(queries.batchSizes).toEqual([3]);
  });

  it(`starts a batch at ${EARLY_BATCH} points while fewer than ${MAX_IN_FLIGHT} commit, then waits for a commit`, async () => {
    expect(MAX_IN_FLIGHT).toBe(2);
    queries.hold();
    const results = writeMany(2 * EARLY_BATCH + 44);
    // Two early batches went at once; the rest lingered, found two committing, and waits.
    await waitFor(() => queries.batchSizes.length === 2, 'two batches', 5_000, 1);
    await pause(4 * LINGER_MS);
    expect(queries.batchSizes).toEqual([EARLY_BATCH, EARLY_BATCH]);
    queries.release();
    expect((await results).every((result) => result === 'stored')).toBe(true);
    expect(queries.batchSizes).toEqual([EARLY_BATCH, EARLY_BATCH, 44]);
    expect(queries.mostRunning).toBe(2);
  });

  it('starts a full early batch as soon as a commit ends, without waiting out the linger', async () => {
    queries.hold();
    const results = writeMany(3 * EARLY_BATCH);
    await waitFor(() => queries.batchSizes.length === 2, 'two batches', 5_000, 1);
    expect(queries.batchSizes).toEqual([EARLY_BATCH, EARLY_BATCH]);
    queries.release();
    await waitFor(() => queries.batchSizes.length === 3, 'the third batch', 5_000, 1);
    expect(queries.batchSizes).toEqual([EARLY_BATCH, EARLY_BATCH, EARLY_BATCH]);
    expect((await results).every((result) => result === 'stored')).toBe(true);
  });

  it(`writes ${MAX_BATCH} waiting points even while two batches commit: a statement stays bounded`, async () => {
    const storedBefore = await storedCount();
    queries.hold();
    const results = writeMany(2 * EARLY_BATCH + MAX_BATCH);
    await waitFor(() => queries.batchSizes.length === 3, 'three batches', 5_000, 1);
    expect(queries.batchSizes).toEqual([EARLY_BATCH, EARLY_BATCH, MAX_BATCH]);
    expect(queries.running).toBe(3);
    queries.release();
    expect((await results).every((result) => result === 'stored')).toBe(true);
    expect((await storedCount()) - storedBefore).toBe(2 * EARLY_BATCH + MAX_BATCH);
  });

  it('settles a row whose values the database refuses as unstorable, once, beside its batch-mates', async () => {
    // The hourly rollup's energy of 5e-324 W over 20 s underflows to 0, which PostgreSQL refuses
    // (SQLSTATE 22003); the normalizer reads such values as 0, the writer must not count on it.
    const at = (offset: number) => new Date(START + 40 * 86_400_000 + offset);
    const point = (ts: Date, solarPower: number): TelemetryPoint => {
      const values = emptyTelemetryValues();
      values.solarPower = solarPower;
      return { sunSourceId, ts, receivedAt: ts, values, raw: { solarPower } };
    };
    expect(await writer.write(point(at(0), 0))).toBe('stored');
    expect(await writer.write(point(at(20_000), 5e-324))).toBe('unstorable');
    expect(
      await Promise.all([
        writer.write(point(at(40_000), 5e-324)),
        writer.write(point(at(60_000), 100)),
        writer.write(point(at(80_000), 200)),
      ]),
    ).toEqual(['unstorable', 'stored', 'stored']);
    const rows = await db.query<{ ts: Date }>(
      'SELECT ts FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 ORDER BY ts',
      [sunSourceId, at(0)],
    );
    expect(rows.rows.map((row) => row.ts.getTime())).toEqual([at(0), at(60_000), at(80_000)].map(Number));
  });

  async function storedCount(): Promise<number> {
    const stored = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1',
      [sunSourceId],
    );
    return stored.rows[0].n;
  }
});
