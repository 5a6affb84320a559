import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '@solar/database';
import {
  insertSpecSources,
  insertSpecUser,
  openSpecDatabase,
  seededRandom,
  SpecDatabase,
} from '@solar/testing';
import { TelemetryQueryRepository } from '../query/telemetry-query.repository';
import { INSERT_TELEMETRY_SQL, insertParameters } from '../storage/telemetry-insert';
import { TelemetryPoint } from '../storage/telemetry-point';
import { emptyTelemetryValues } from '../telemetry-fields';
import { counterIncrement, DailyEnergyTally, DayEnergy, powerIncrement, Reading } from './energy-increments';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.parse('2026-06-07T18:00:00Z');

type Random = () => number;

interface RawReading {
  at: number;
  dailyEnergyProduced: number | null;
  dailyEnergyConsumed: number | null;
  solarPower: number | null;
  loadPower: number | null;
}

/**
 * Four days of a device that now and then reboots (its counters restart), reports the consumed
 * counter only in the mornings, drops fields, and falls silent for hours: every rule has work.
 */
function deviceReadings(random: Random): RawReading[] {
  const readings: RawReading[] = [];
  let at = START;
  let produced = 0;
  let consumed = 0;
  let day = Math.floor(at / DAY);
  while (at < START + 4 * DAY) {
    at += random() < 0.04 ? Math.floor(random() * 4 * HOUR) : 20_000 + Math.floor(random() * 7 * MINUTE);
    if (Math.floor(at / DAY) !== day || random() < 0.01) {
      day = Math.floor(at / DAY);
      produced = 0;
      consumed = 0;
    }
    produced += random() * 0.3;
    consumed += random() * 0.2;
    const hourOfDay = (at % DAY) / HOUR;
    const maybe = (value: number, chance: number) =>
      random() < chance ? Math.round(value * 1000) / 1000 : null;
    readings.push({
      at,
      dailyEnergyProduced: maybe(produced, day % 2 === 0 ? 0.8 : 0),
      dailyEnergyConsumed: hourOfDay < 12 ? maybe(consumed, 0.6) : null,
      solarPower: maybe(random() * 5000, 0.8),
      loadPower: maybe(random() * 3000, 0.8),
    });
  }
  return readings;
}

/** The readings in random order, in batches of 1 to 4 points, as buffered devices and several writers deliver them. */
function shuffledBatches(random: Random, readings: RawReading[]): RawReading[][] {
  const shuffled = readings
    .map((reading) => [random(), reading] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, reading]) => reading);
  const batches: RawReading[][] = [];
  for (let index = 0; index < shuffled.length;) {
    const size = 1 + Math.floor(random() * 4);
    batches.push(shuffled.slice(index, index + size));
    index += size;
  }
  return batches;
}

/** The reference: the TypeScript rules over the raw readings in [start, end], from the last reading before. */
function tallies(
  readings: RawReading[],
  start: number,
  end: number,
): { produced: DayEnergy[]; consumed: DayEnergy[] } {
  const lastBefore = (field: keyof Omit<RawReading, 'at'>): Reading | null => {
    const previous = readings.filter((reading) => reading.at < start && reading[field] !== null).pop();
    return previous ? { at: previous.at, value: previous[field]! } : null;
  };
  const produced = new DailyEnergyTally({
    counter: lastBefore('dailyEnergyProduced'),
    power: lastBefore('solarPower'),
  });
  const consumed = new DailyEnergyTally({
    counter: lastBefore('dailyEnergyConsumed'),
    power: lastBefore('loadPower'),
  });
  for (const reading of readings) {
    if (reading.at < start || reading.at > end) continue;
    produced.add(reading.at, reading.dailyEnergyProduced ?? Number.NaN, reading.solarPower ?? Number.NaN);
    consumed.add(reading.at, reading.dailyEnergyConsumed ?? Number.NaN, reading.loadPower ?? Number.NaN);
  }
  return { produced: produced.days(), consumed: consumed.days() };
}

const kwh = (value: number | null) => (value === null ? null : expect.closeTo(value, 9));

describe("a day's energy: the SQL over the hourly rollup and the TypeScript rules agree", () => {
  let database: SpecDatabase;
  let databaseUrl: string;
  let db: Client;
  let dataSource: DataSource;
  let prepared: PreparedQueries;
  let repository: TelemetryQueryRepository;
  let userId: string;

  beforeAll(async () => {
    database = await openSpecDatabase();
    ({ url: databaseUrl, db, dataSource } = database);
    prepared = new PreparedQueries(dataSource);
    repository = new TelemetryQueryRepository(dataSource, prepared);
    userId = await insertSpecUser(db);
    await db.query(`SELECT ensure_telemetry_partition(date '2026-06-01')`);
  });

  afterAll(async () => {
    await prepared.onApplicationShutdown();
    await database.close();
  });

  async function createSource(): Promise<string> {
    const [id] = await insertSpecSources(db, userId);
    return id;
  }

  function pointOf(sunSourceId: string, reading: RawReading): TelemetryPoint {
    const values = emptyTelemetryValues();
    values.dailyEnergyProduced = reading.dailyEnergyProduced;
    values.dailyEnergyConsumed = reading.dailyEnergyConsumed;
    values.solarPower = reading.solarPower;
    values.loadPower = reading.loadPower;
    const ts = new Date(reading.at);
    return { sunSourceId, ts, receivedAt: ts, values, raw: {} };
  }

  it('per reading: telemetry_counter_increment and telemetry_power_increment are counterIncrement and powerIncrement', async () => {
    const random = seededRandom(5);
    const reading = Date.parse('2026-06-08T00:07:30Z');
    // Previous readings the same day, just before midnight, the day before, two days before,
    // 15 minutes before and a little more; equal, higher and lower values.
    const offsets = [
      1000,
      7 * MINUTE,
      7.5 * MINUTE,
      7.5 * MINUTE + 1,
      15 * MINUTE,
      15 * MINUTE + 1,
      12 * HOUR,
      DAY,
      2 * DAY,
    ];
    const cases = offsets.flatMap((offset) =>
      [0, 1, 2, 3].map((kind) => {
        const value = Math.round(random() * 50_000) / 1000;
        const previous = [value, value + 1 + random() * 5, value - random() * value, null][kind];
        return { previousAt: reading - offset, previous, value };
      }),
    );
    const { rows } = await db.query<{ counter: number | null; power: number | null }>(
      `SELECT telemetry_counter_increment(p_at / 1000, p, $3::float8 / 1000, v) AS counter,
              telemetry_power_increment(p_at / 1000, p, $3::float8 / 1000, v) AS power
         FROM unnest($1::float8[], $2::float8[], $4::float8[]) WITH ORDINALITY AS c(p_at, p, v, i)
        ORDER BY i`,
      [
        cases.map((entry) => entry.previousAt),
        cases.map((entry) => entry.previous),
        reading,
        cases.map((entry) => entry.value),
      ],
    );
    const expected = cases.map(({ previousAt, previous, value }) => {
      const earlier = previous === null ? undefined : { at: previousAt, value: previous };
      return {
        counter: kwh(counterIncrement(earlier, { at: reading, value })),
        power: kwh(powerIncrement(earlier, { at: reading, value })),
      };
    });
    expect(rows).toEqual(expected);
    // Every branch was taken.
    expect(new Set(rows.map((row) => row.power === null)).size).toBe(2);
    expect(rows.some((row, index) => row.counter === 0 && cases[index].value > 0)).toBe(true);
  });

  it.each([2, 3])(
    'daily energy and methods over ranges starting and ending anywhere equal the rules over the raw readings, after ingestion in any order (seed %i)',
    async (seed) => {
      const random = seededRandom(seed);
      const source = await createSource();
      const readings = deviceReadings(random);
      for (const batch of shuffledBatches(random, readings)) {
        await db.query(
          INSERT_TELEMETRY_SQL,
          insertParameters(batch.map((reading) => pointOf(source, reading))),
        );
      }

      // The rollup kept batch by batch is the one recounted from the raw rows at once.
      const rollup = async () =>
        (await db.query('SELECT * FROM telemetry_hourly WHERE sun_source_id = $1 ORDER BY hour', [source]))
          .rows;
      const kept = await rollup();
      await db.query(`SELECT rebuild_telemetry_hourly($1, '-infinity', 'infinity')`, [source]);
      const recounted = await rollup();
      expect(kept).toEqual(recounted.map(roughly));

      const methods = new Set<string | null>();
      for (let round = 0; round < 25; round++) {
        let start = START - 2 * HOUR + Math.floor(random() * 4 * DAY);
        if (round % 5 === 0) start = Math.ceil(start / DAY) * DAY;
        const end = start + [0, HOUR, 7 * HOUR, DAY, 3 * DAY][round % 5] + Math.floor(random() * HOUR);
        const days = await repository.daily(source, { start: new Date(start), end: new Date(end) });
        const { produced, consumed } = tallies(readings, start, end);
        // Every day the readings give energy to is a day of the summary.
        const summaryDays = days.map((day) => day.day.getTime() / DAY);
        for (const day of [...produced, ...consumed]) expect(summaryDays).toContain(day.day);
        const of = (tally: DayEnergy[], day: number) => tally.find((entry) => entry.day === day);
        const expected = summaryDays.map((day) => ({
          day: new Date(day * DAY),
          energyProduced: kwh(of(produced, day)?.kwh ?? null),
          energyProducedMethod: of(produced, day)?.method ?? null,
          energyConsumed: kwh(of(consumed, day)?.kwh ?? null),
          energyConsumedMethod: of(consumed, day)?.method ?? null,
        }));
        const range = `${new Date(start).toISOString()} – ${new Date(end).toISOString()}`;
        expect({
          range,
          days: days.map((day) => ({
            day: day.day,
            energyProduced: day.energyProduced,
            energyProducedMethod: day.energyProducedMethod,
            energyConsumed: day.energyConsumed,
            energyConsumedMethod: day.energyConsumedMethod,
          })),
        }).toEqual({ range, days: expected });
        for (const day of expected) methods.add(day.energyProducedMethod).add(day.energyConsumedMethod);
      }
      expect([...methods]).toEqual(expect.arrayContaining(['counter', 'power']));

      // ROI's measured production: every day with energy, over all the source's telemetry.
      const allTime = tallies(readings, 0, Number.MAX_SAFE_INTEGER).produced.filter(
        (day) => day.method !== null,
      );
      expect(await repository.productionByDay(source)).toEqual(
        allTime.map((day) => ({ day: new Date(day.day * DAY), energyKwh: kwh(day.kwh), method: day.method })),
      );
    },
  );

  it("batches of one source from two writers run one after the other, and each hour counts from the other's readings", async () => {
    const source = await createSource();
    const counterAt = (at: string, value: number): RawReading => ({
      at: Date.parse(at),
      dailyEnergyProduced: value,
      dailyEnergyConsumed: null,
      solarPower: null,
      loadPower: null,
    });
    const insert = (client: Client, readings: RawReading[]) =>
      client.query(
        INSERT_TELEMETRY_SQL,
        insertParameters(readings.map((reading) => pointOf(source, reading))),
      );
    const otherWriter = new Client({ connectionString: databaseUrl });
    await otherWriter.connect();
    try {
      // The first writer's batch of the 10 o'clock hour is not committed yet when the second
      // writer's batch of the next hour arrives.
      await otherWriter.query('BEGIN');
      await insert(otherWriter, [counterAt('2026-06-20T10:50:00Z', 5), counterAt('2026-06-20T10:55:00Z', 6)]);
      let secondDone = false;
      const second = insert(db, [counterAt('2026-06-20T11:05:00Z', 7)]).then(() => (secondDone = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(secondDone).toBe(false);
      await otherWriter.query('COMMIT');
      await second;
    } finally {
      await otherWriter.end();
    }

    // 5 kWh by 10:50 (the day's first reading), then 1 and 1: 11:05's reading counts from 10:55's,
    // though the batch holding it started before that reading was committed.
    const [day] = await repository.daily(source, {
      start: new Date('2026-06-20T00:00:00Z'),
      end: new Date('2026-06-20T23:59:59Z'),
    });
    expect(day.energyProduced).toBeCloseTo(7, 9);
    const rollup = async () =>
      (await db.query('SELECT * FROM telemetry_hourly WHERE sun_source_id = $1 ORDER BY hour', [source]))
        .rows;
    const kept = await rollup();
    await db.query(`SELECT rebuild_telemetry_hourly($1, '-infinity', 'infinity')`, [source]);
    expect(kept).toEqual((await rollup()).map(roughly));
  });
});

/** A row with every number compared to 9 decimals: sums added in another order differ in the last bits. */
function roughly(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'number' ? expect.closeTo(value, 9) : value,
    ]),
  );
}
