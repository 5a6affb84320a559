import { Client } from 'pg';
import { ApiWithUser, createWebhookSource, FakeClock, Http, startApiWithUser } from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { postTelemetry } from './support/api-harness';

const NOW = new Date('2026-06-10T12:00:00Z');
const DAY = 86_400_000;
const OLD = Date.UTC(2026, 4, 1, 10, 0, 0); // 2026-05-01 10:00, 40 days before NOW
const at = (milliseconds: number) => new Date(milliseconds).toISOString();

describe('downsampling', () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let cookie: string;

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp, { clock: new FakeClock(NOW) });
    ({ http, db, cookie } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function sourceWith(points: object[]): Promise<string> {
    const source = await createWebhookSource(http, cookie, { name: 'S' });
    for (const point of points) {
      const response = await postTelemetry(http, source, point);
      expect(response.body.stored).toBe(true);
    }
    return source.id;
  }

  const rows = async (id: string) =>
    (
      await db.query(
        `SELECT ts, solar_power, state_of_charge, daily_energy_produced, operating_mode, fault_codes, raw
           FROM telemetry WHERE sun_source_id = $1 ORDER BY ts`,
        [id],
      )
    ).rows;

  // Bucket A: three readings; B: two; C: one at its bucket's start (already compact);
  // D: one reading off its bucket's start; then recent readings that must stay as they are.
  const points = [
    { timestamp: at(OLD), solarPower: 100, stateOfCharge: 50, dailyEnergyProduced: 1, mode: 'Solar' },
    {
      timestamp: at(OLD + 60_000),
      solarPower: 200,
      stateOfCharge: 52,
      dailyEnergyProduced: 1.2,
      mode: 'Solar',
      faults: 'F1',
    },
    {
      timestamp: at(OLD + 120_000),
      solarPower: 600,
      stateOfCharge: 54,
      dailyEnergyProduced: 1.4,
      mode: 'Battery',
    },
    { timestamp: at(OLD + 300_000), solarPower: 10, stateOfCharge: 60 },
    { timestamp: at(OLD + 400_000), solarPower: 30, stateOfCharge: 62, faults: 'F2,F3' },
    { timestamp: at(OLD + 3_600_000), solarPower: 7 },
    { timestamp: at(OLD + 7_200_000 + 30_000), solarPower: 9 },
    { timestamp: at(NOW.getTime() - 10 * DAY), solarPower: 1 },
    { timestamp: at(NOW.getTime() - 10 * DAY + 20_000), solarPower: 2 },
  ];

  it('turns data older than 30 days into one row per 5 minutes, and leaves newer data alone', async () => {
    const id = await sourceWith(points);
    const response = await http.post(`/api/sunsourcedata/downsample/${id}`).set('Cookie', cookie).expect(200);
    expect(response.body).toEqual({ bucketsWritten: 3, rowsRemoved: 6 });

    const after = await rows(id);
    expect(after.map((row) => [row.ts.toISOString(), row.solar_power])).toEqual([
      [at(OLD), (100 + 200 + 600) / 3],
      [at(OLD + 300_000), 20],
      [at(OLD + 3_600_000), 7],
      [at(OLD + 7_200_000), 9],
      [at(NOW.getTime() - 10 * DAY), 1],
      [at(NOW.getTime() - 10 * DAY + 20_000), 2],
    ]);
    expect(after[0]).toMatchObject({
      state_of_charge: 52,
      daily_energy_produced: 1.4, // counters keep the bucket's highest reading
      operating_mode: 'Solar', // the most frequent
      fault_codes: null, // those of the bucket's last reading
      raw: { downsampled: true, samples: 3 },
    });
    expect(after[1]).toMatchObject({ fault_codes: ['F2', 'F3'], raw: { downsampled: true, samples: 2 } });
    expect(after[2].raw).toEqual({ timestamp: at(OLD + 3_600_000), solarPower: 7 });
  });

  it('changes nothing when run again', async () => {
    const id = await sourceWith(points);
    await http.post(`/api/sunsourcedata/downsample/${id}`).set('Cookie', cookie).expect(200);
    const before = await rows(id);
    const again = await http.post(`/api/sunsourcedata/downsample/${id}`).set('Cookie', cookie).expect(200);
    expect(again.body).toEqual({ bucketsWritten: 0, rowsRemoved: 0 });
    expect(await rows(id)).toEqual(before);
  });

  it('is all or nothing: a failure halfway leaves the original rows', async () => {
    const id = await sourceWith(points);
    const before = await rows(id);
    await db.query(
      `ALTER TABLE telemetry ADD CONSTRAINT refuse_compacted CHECK (NOT raw ? 'downsampled') NOT VALID`,
    );
    try {
      const failed = await http.post(`/api/sunsourcedata/downsample/${id}`).set('Cookie', cookie);
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ message: 'Internal server error', requestId: expect.any(String) });
    } finally {
      await db.query('ALTER TABLE telemetry DROP CONSTRAINT refuse_compacted');
    }
    expect(await rows(id)).toEqual(before);
  });

  it('runs one at a time per source: several at once all answer 200 and compact it once', async () => {
    const seeded = async () => {
      const id = await sourceWith([]);
      // Two days of 10-second readings, 40 days old: enough work for the runs to overlap.
      await db.query(`SELECT ensure_telemetry_partition('2026-05-01')`);
      await db.query(
        `INSERT INTO telemetry (sun_source_id, ts, solar_power, raw)
         SELECT $1, to_timestamp(($2::float8 + i * 10000) / 1000), i % 500, '{}'
           FROM generate_series(0, 17279) AS i`,
        [id, OLD],
      );
      return id;
    };
    const [id, reference] = [await seeded(), await seeded()];
    const once = await http.post(`/api/sunsourcedata/downsample/${reference}`).set('Cookie', cookie);
    expect(once.body).toEqual({ bucketsWritten: 576, rowsRemoved: 17_280 });

    const runs = await Promise.all(
      Array.from({ length: 3 }, () => http.post(`/api/sunsourcedata/downsample/${id}`).set('Cookie', cookie)),
    );

    expect(runs.map((run) => run.status)).toEqual([200, 200, 200]);
    expect(runs.map((run) => run.body).sort((a, b) => b.bucketsWritten - a.bucketsWritten)).toEqual([
      { bucketsWritten: 576, rowsRemoved: 17_280 },
      { bucketsWritten: 0, rowsRemoved: 0 },
      { bucketsWritten: 0, rowsRemoved: 0 },
    ]);
    const compacted = async (sourceId: string) =>
      (await rows(sourceId)).map(({ ts, solar_power, raw }) => [ts.toISOString(), solar_power, raw]);
    expect(await compacted(id)).toEqual(await compacted(reference));
  });
});
