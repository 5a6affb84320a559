import { Client } from 'pg';
import { createTestDatabase, insertSpecSources, insertSpecUser } from '@solar/testing';
import { emptyTelemetryValues } from '../telemetry-fields';
import { INSERT_TELEMETRY_SQL, insertParameters } from './telemetry-insert';
import { TelemetryPoint } from './telemetry-point';

const HOUR = 3_600_000;
const SOURCES = 50;
const ROUNDS = 20;
const DEADLOCK = '40P01';

/**
 * Several api and ingestor processes store batches at once. Two batches sharing keys, raw
 * (the same point resent to two processes) or hourly (points of the same source and hour), must
 * lock them in the same order whatever order the points came in, or they deadlock: PostgreSQL
 * then aborts one batch after a second. Without the statement's ORDER BYs each scenario
 * deadlocks in several of its rounds.
 */
describe('INSERT_TELEMETRY_SQL, two batches at once', () => {
  let drop: () => Promise<void>;
  let writers: Client[];
  let db: Client;
  let sources: string[];
  let writerPids: number[];

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    [db, ...writers] = [0, 1, 2].map(() => new Client({ connectionString: database.url }));
    await Promise.all([db, ...writers].map((client) => client.connect()));
    writerPids = await Promise.all(
      writers.map(
        async (writer) => (await writer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number,
      ),
    );
    sources = await insertSpecSources(db, await insertSpecUser(db), SOURCES);
    // Statistics as a live database has them: the planner then aggregates by hashing.
    await db.query(`ANALYZE sun_sources`);
    await db.query(
      `SELECT ensure_telemetry_partition(month::date)
         FROM generate_series(date '2026-03-01', date '2026-05-01', interval '1 month') AS month`,
    );
  });

  afterAll(async () => {
    await Promise.all([db, ...writers].map((client) => client.end()));
    await drop();
  });

  function point(source: number, ts: number, solarPower: number): TelemetryPoint {
    const values = emptyTelemetryValues();
    values.solarPower = solarPower;
    return { sunSourceId: sources[source], ts: new Date(ts), receivedAt: new Date(ts), values, raw: {} };
  }

  /**
   * Both batches at once on their own sessions; returns how many were aborted as deadlock
   * victims. With a `gate`, a third session keeps the hour of that point locked until both
   * batches wait: each then holds the keys it locked before it, which is when two different lock
   * orders deadlock, rather than only when the timing happens to line up.
   */
  async function concurrently(
    first: TelemetryPoint[],
    second: TelemetryPoint[],
    gate?: TelemetryPoint,
  ): Promise<number> {
    if (gate) {
      await db.query(INSERT_TELEMETRY_SQL, insertParameters([gate]));
      await db.query('BEGIN');
      await db.query(
        `SELECT 1 FROM telemetry_hourly
          WHERE sun_source_id = $1 AND hour = date_trunc('hour', $2::timestamptz, 'UTC') FOR UPDATE`,
        [gate.sunSourceId, gate.ts],
      );
    }
    const outcomes = Promise.allSettled([
      writers[0].query(INSERT_TELEMETRY_SQL, insertParameters(first)),
      writers[1].query(INSERT_TELEMETRY_SQL, insertParameters(second)),
    ]);
    if (gate) {
      await waitUntilBothWait();
      await db.query('COMMIT');
    }
    let deadlocks = 0;
    for (const outcome of await outcomes) {
      if (outcome.status === 'fulfilled') continue;
      if ((outcome.reason as { code?: string }).code !== DEADLOCK) throw outcome.reason;
      deadlocks += 1;
    }
    return deadlocks;
  }

  async function waitUntilBothWait(): Promise<void> {
    for (let attempt = 0; attempt < 500; attempt++) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1) AND wait_event_type = 'Lock'`,
        [writerPids],
      );
      if (rows[0].n === 2) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the batches never both waited on a lock');
  }

  async function expectRollupMatchesRaw(): Promise<void> {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM telemetry)::int AS raw,
              (SELECT coalesce(sum(sample_count), 0) FROM telemetry_hourly)::int AS rolled,
              (SELECT coalesce(sum(solar_power), 0) FROM telemetry)::float8 AS "rawSolar",
              (SELECT coalesce(sum(solar_power_sum), 0) FROM telemetry_hourly)::float8 AS "rolledSolar"`,
    );
    expect(rows[0].rolled).toBe(rows[0].raw);
    expect(rows[0].rolledSolar).toBe(rows[0].rawSolar);
  }

  it('the same points in opposite orders: stored once, no deadlock', async () => {
    let deadlocks = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = Date.UTC(2026, 2, 1) + round * 2 * HOUR;
      const points = Array.from({ length: 1000 }, (_, i) => point(i % SOURCES, start + i * 7_001, i));
      deadlocks += await concurrently(points, [...points].reverse());
    }
    expect(deadlocks).toBe(0);
    await expectRollupMatchesRaw();
  });

  it('different points of the same sources and hours, in batches of different shapes: no deadlock', async () => {
    let deadlocks = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = Date.UTC(2026, 3, 1) + round * 24 * HOUR;
      // One point per source in each of 20 hours, against two per source in 10 of them: hash
      // tables of different sizes, so unsorted groups would come out in different orders.
      const spread = Array.from({ length: 1000 }, (_, i) =>
        point(i % SOURCES, start + Math.floor(i / SOURCES) * HOUR, 1),
      );
      const dense = Array.from({ length: 1000 }, (_, i) =>
        point(
          i % SOURCES,
          start + (5 + (Math.floor(i / SOURCES) % 10)) * HOUR + (1 + Math.floor(i / 500)) * 1000,
          2,
        ),
      );
      const gate = point(round % SOURCES, start + (5 + (round % 10)) * HOUR + 999, 3);
      deadlocks += await concurrently(spread, dense, gate);
    }
    expect(deadlocks).toBe(0);
    await expectRollupMatchesRaw();
    // 6 s alone, 24-27 s after the test above on a quiet 2-core machine: its rows are in tables
    // never analyzed (nothing here runs autovacuum), and the plans stay those of empty tables.
    // Analyzing would change the plans this test is about, so it gets the time instead.
  }, 90_000);
});

describe('INSERT_TELEMETRY_SQL, raw payloads', () => {
  let drop: () => Promise<void>;
  let db: Client;
  let sources: string[];

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new Client({ connectionString: database.url });
    await db.connect();
    sources = await insertSpecSources(db, await insertSpecUser(db), 2);
    await db.query(`SELECT ensure_telemetry_partition(date '2026-03-01')`);
  });

  afterAll(async () => {
    await db.end();
    await drop();
  });

  it('each row keeps its own payload, whatever order the batch and the rows are in', async () => {
    const start = Date.UTC(2026, 2, 2);
    const payloads: Array<Record<string, unknown>> = [
      { quote: 'say "hi"', backslash: 'C:\\dir\\', nested: { list: [1, null, 'x'] } },
      { unicode: 'Zürich ☀ \u2028', empty: '' },
      {},
      { list: [{ a: 1 }, 'two'], none: null },
      { text: 'a string with {braces}, "quotes", commas and \\' },
    ];
    // Later timestamps first, both sources interleaved: the statement stores rows sorted by key.
    const points: TelemetryPoint[] = payloads.map((raw, i) => ({
      sunSourceId: sources[i % 2],
      ts: new Date(start + (payloads.length - i) * 60_000),
      receivedAt: new Date(start),
      values: emptyTelemetryValues(),
      raw,
    }));
    await db.query(INSERT_TELEMETRY_SQL, insertParameters(points));
    const { rows } = await db.query<{ sun_source_id: string; ts: Date; raw: unknown }>(
      'SELECT sun_source_id, ts, raw FROM telemetry',
    );
    expect(rows).toHaveLength(payloads.length);
    for (const point of points) {
      const row = rows.find(
        (r) => r.sun_source_id === point.sunSourceId && r.ts.getTime() === point.ts.getTime(),
      );
      expect(row?.raw).toEqual(point.raw);
    }
  });
});

/**
 * A point appended to a source's latest hour changes that hour's last readings, which only a
 * later hour's opening counts from: with no later hour the trigger leaves the openings alone
 * (a device's every message lands there). Counted by PostgreSQL's own function statistics.
 */
describe('INSERT_TELEMETRY_SQL, the openings refreshed after an hour changes', () => {
  let drop: () => Promise<void>;
  let db: Client;
  let source: string;
  const start = Date.UTC(2026, 2, 3, 10);

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new Client({ connectionString: database.url });
    await db.connect();
    [source] = await insertSpecSources(db, await insertSpecUser(db), 1);
    await db.query(`SELECT ensure_telemetry_partition(date '2026-03-01')`);
    await db.query(`SET track_functions = 'all'`);
  });

  afterAll(async () => {
    await db.end();
    await drop();
  });

  function reading(minutes: number, kwh: number): TelemetryPoint {
    const values = emptyTelemetryValues();
    values.dailyEnergyProduced = kwh;
    const ts = new Date(start + minutes * 60_000);
    return { sunSourceId: source, ts, receivedAt: ts, values, raw: {} };
  }

  // The session's calls not yet reported to the statistics; nothing is reported inside a transaction.
  const refreshCalls = async () =>
    Number(
      (
        await db.query<{ calls: string }>(
          `SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_xact_user_functions
            WHERE funcname = 'refresh_telemetry_openings'`,
        )
      ).rows[0].calls,
    );

  /** Stores `points` in a transaction of its own; how many times it refreshed openings. */
  async function refreshesStoring(points: TelemetryPoint[]): Promise<number> {
    await db.query('BEGIN');
    const before = await refreshCalls();
    await db.query(INSERT_TELEMETRY_SQL, insertParameters(points));
    const after = await refreshCalls();
    await db.query('COMMIT');
    return after - before;
  }

  const openingOfHour = async (hours: number) =>
    (
      await db.query<{ opening: number | null }>(
        `SELECT opening_daily_energy_produced AS opening FROM telemetry_hourly
          WHERE sun_source_id = $1 AND hour = $2`,
        [source, new Date(start + hours * HOUR)],
      )
    ).rows[0].opening;

  it('an hour that gains a last reading refreshes the next hour only if there is one', async () => {
    await db.query(INSERT_TELEMETRY_SQL, insertParameters([reading(0, 1), reading(80, 3)]));
    expect(await openingOfHour(1)).toBeCloseTo(2, 9);

    const refreshes = [
      // The latest hour gains a last reading: nothing after it counts from its readings.
      await refreshesStoring([reading(90, 4)]),
      // An earlier hour does: the next one now counts from 2.5 kWh at 10:30.
      await refreshesStoring([reading(30, 2.5)]),
    ];
    expect(await openingOfHour(1)).toBeCloseTo(0.5, 9);
    // The latest hour gains a first reading (11:10, before 11:20): its own opening.
    refreshes.push(await refreshesStoring([reading(70, 2.75)]));
    expect(refreshes).toEqual([0, 1, 1]);
    expect(await openingOfHour(1)).toBeCloseTo(0.25, 9);
  });
});
