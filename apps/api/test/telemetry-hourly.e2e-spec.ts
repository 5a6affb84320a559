import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import {
  counterIncrement,
  DailyEnergyTally,
  DayEnergy,
  normalizeTelemetry,
  powerIncrement,
  Reading,
  TelemetryPoint,
  TelemetryWriter,
} from '@solar/telemetry';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  seededRandom,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-10T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Recent data: three days ending two hours before NOW. */
const RECENT = NOW.getTime() - 3 * DAY - 2 * HOUR;
/** Old enough to be downsampled (40 days). */
const OLD = NOW.getTime() - 40 * DAY;

/** Fields the rollup keeps, with values inside their physical ranges. */
const FIELDS: ReadonlyArray<[name: string, min: number, max: number]> = [
  ['batteryVoltage', 40, 60],
  ['stateOfCharge', 0, 100],
  ['solarPower', 0, 8000],
  ['loadPercentage', 0, 150],
  ['loadPower', 0, 5000],
  ['gridVoltage', 200, 250],
  ['gridFrequency', 49, 51],
  ['dailyEnergyProduced', 0, 40],
  ['dailyEnergyConsumed', 0, 30],
];

type Random = () => number;
type Payload = Record<string, unknown> & { timestamp: string };

/** A device message at `ts`: each field missing a quarter of the time, values with decimals. */
function payloadAt(random: Random, ts: number): Payload {
  const payload: Payload = { timestamp: new Date(ts).toISOString(), operatingMode: 'Solar' };
  for (const [name, min, max] of FIELDS) {
    if (random() < 0.75) payload[name] = Math.round((min + random() * (max - min)) * 1000) / 1000;
  }
  return payload;
}

/** `count` random instants (milliseconds) in [from, from + length), a share of them on the hour. */
function instants(random: Random, from: number, length: number, count: number, onTheHour = 0.1): number[] {
  return Array.from({ length: count }, () => {
    const ts = from + Math.floor(random() * length);
    return random() < onTheHour ? Math.floor(ts / HOUR) * HOUR : ts;
  });
}

function pointOf(sunSourceId: string, payload: Payload): TelemetryPoint {
  const normalized = normalizeTelemetry(payload, NOW);
  if (!normalized.ok) throw new Error(`${normalized.reason}: ${JSON.stringify(payload)}`);
  const { timestamp, values, raw } = normalized.telemetry;
  return { sunSourceId, ts: timestamp ?? NOW, receivedAt: NOW, values, raw };
}

/** Every number compared to 9 significant digits: sums added in another order differ in the last bits. */
function roughly(value: unknown): unknown {
  if (typeof value === 'number')
    return expect.closeTo(value, Math.max(0, 9 - Math.ceil(Math.log10(Math.abs(value) + 1))));
  if (Array.isArray(value)) return value.map(roughly);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, nested]) => [key, roughly(nested)]));
  }
  return value;
}

// The reference: the rollup and the query answers recomputed from the raw rows by plain GROUP BY,
// written out here independently of the application's SQL; energy by the TypeScript rules over
// the raw readings in time order.
const ROLLUP_FROM_RAW = `
  SELECT sun_source_id, date_trunc('hour', ts, 'UTC') AS hour, count(*)::int AS sample_count,
         coalesce(sum(battery_voltage), 0) AS battery_voltage_sum, count(battery_voltage)::int AS battery_voltage_count,
         coalesce(sum(state_of_charge), 0) AS state_of_charge_sum, count(state_of_charge)::int AS state_of_charge_count,
         coalesce(sum(solar_power), 0) AS solar_power_sum, count(solar_power)::int AS solar_power_count,
         coalesce(sum(load_percentage), 0) AS load_percentage_sum, count(load_percentage)::int AS load_percentage_count,
         coalesce(sum(load_power), 0) AS load_power_sum, count(load_power)::int AS load_power_count,
         coalesce(sum(grid_voltage), 0) AS grid_voltage_sum, count(grid_voltage)::int AS grid_voltage_count,
         coalesce(sum(grid_frequency), 0) AS grid_frequency_sum, count(grid_frequency)::int AS grid_frequency_count,
         max(solar_power) AS max_solar_power, max(load_power) AS max_load_power,
         min(state_of_charge) AS min_state_of_charge, max(state_of_charge) AS max_state_of_charge,
         min(ts) AS first_ts, max(ts) AS last_ts
    FROM telemetry WHERE sun_source_id = ANY($1::uuid[])
   GROUP BY 1, 2 ORDER BY 1, 2`;

/** The energy fields of the raw rows, oldest first. */
const RAW_ENERGY_READINGS = `
  SELECT sun_source_id, ts, daily_energy_produced, daily_energy_consumed, solar_power, load_power
    FROM telemetry WHERE sun_source_id = ANY($1::uuid[]) ORDER BY sun_source_id, ts`;

interface EnergyRow {
  sun_source_id: string;
  ts: Date;
  daily_energy_produced: number | null;
  daily_energy_consumed: number | null;
  solar_power: number | null;
  load_power: number | null;
}

/**
 * An hour's energy columns of the rollup, from its readings in time order and the source's
 * readings before the hour (its openings: what the hour's first reading carries over the last
 * reading before it).
 */
function hourEnergyColumns(rows: EnergyRow[], earlier: EnergyRow[]): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  const lastBefore = (field: keyof Omit<EnergyRow, 'sun_source_id' | 'ts'>) => {
    const previous = earlier.filter((row) => row[field] !== null).pop();
    return previous ? reading(previous, field) : undefined;
  };
  for (const counter of ['daily_energy_produced', 'daily_energy_consumed'] as const) {
    const readings = rows.filter((row) => row[counter] !== null);
    columns[`opening_${counter}`] =
      readings.length > 0 ? counterIncrement(lastBefore(counter), reading(readings[0], counter)) : null;
    let increase = 0;
    readings.forEach((row, index) => {
      if (index > 0) {
        const previous = readings[index - 1];
        increase += counterIncrement(
          { at: previous.ts.getTime(), value: previous[counter]! },
          reading(row, counter),
        );
      }
    });
    columns[`first_${counter}`] = readings[0]?.[counter] ?? null;
    columns[`last_${counter}`] = readings[readings.length - 1]?.[counter] ?? null;
    columns[`${counter}_increase`] = increase;
  }
  for (const power of ['solar_power', 'load_power'] as const) {
    const readings = rows.filter((row) => row[power] !== null);
    const previous = lastBefore(power);
    columns[`opening_${power}_kwh`] =
      readings.length > 0 && previous ? powerIncrement(previous, reading(readings[0], power)) : null;
    let kwh: number | null = null;
    readings.forEach((row, index) => {
      const increment =
        index > 0 ? powerIncrement(reading(readings[index - 1], power), reading(row, power)) : null;
      if (increment !== null) kwh = (kwh ?? 0) + increment;
    });
    const [first, last] = [readings[0], readings[readings.length - 1]];
    columns[`first_${power}_at`] = first?.ts ?? null;
    columns[`first_${power}`] = first?.[power] ?? null;
    columns[`last_${power}_at`] = last?.ts ?? null;
    columns[`last_${power}`] = last?.[power] ?? null;
    columns[`${power}_kwh`] = kwh;
  }
  return { ...columns, recount: false };
}

const reading = (row: EnergyRow, field: keyof Omit<EnergyRow, 'sun_source_id' | 'ts'>): Reading => ({
  at: row.ts.getTime(),
  value: row[field]!,
});

/** Produced and consumed energy per UTC day of the readings in [start, end], from the last ones before. */
function energyByDay(
  rows: EnergyRow[],
  start: number,
  end: number,
): Map<string, { produced?: DayEnergy; consumed?: DayEnergy }> {
  const before = (field: keyof Omit<EnergyRow, 'sun_source_id' | 'ts'>) => {
    const previous = rows.filter((row) => row.ts.getTime() < start && row[field] !== null).pop();
    return previous ? reading(previous, field) : null;
  };
  const produced = new DailyEnergyTally({
    counter: before('daily_energy_produced'),
    power: before('solar_power'),
  });
  const consumed = new DailyEnergyTally({
    counter: before('daily_energy_consumed'),
    power: before('load_power'),
  });
  for (const row of rows) {
    const at = row.ts.getTime();
    if (at < start || at > end) continue;
    produced.add(at, row.daily_energy_produced ?? Number.NaN, row.solar_power ?? Number.NaN);
    consumed.add(at, row.daily_energy_consumed ?? Number.NaN, row.load_power ?? Number.NaN);
  }
  const days = new Map<string, { produced?: DayEnergy; consumed?: DayEnergy }>();
  const date = (day: DayEnergy) => new Date(day.day * DAY).toISOString().slice(0, 10);
  for (const day of produced.days()) days.set(date(day), { produced: day });
  for (const day of consumed.days()) days.set(date(day), { ...days.get(date(day)), consumed: day });
  return days;
}

const RAW_HOURLY = `
  SELECT date_trunc('hour', ts, 'UTC') AS "timestamp",
         avg(battery_voltage) AS "averageBatteryVoltage", avg(state_of_charge) AS "averageStateOfCharge",
         avg(solar_power) AS "averageSolarPower", avg(load_percentage) AS "averageLoadPercentage",
         avg(load_power) AS "averageLoadPower", max(solar_power) AS "maxSolarPower",
         max(load_power) AS "maxLoadPower", min(state_of_charge) AS "minStateOfCharge",
         count(*)::int AS "sampleCount"
    FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3
   GROUP BY 1 ORDER BY 1`;

const RAW_DAILY = `
  SELECT to_char(date_trunc('day', ts, 'UTC') AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "date",
         avg(solar_power) AS "solarPowerAvg", max(solar_power) AS "solarPowerMax",
         avg(load_power) AS "loadPowerAvg", max(load_power) AS "loadPowerMax",
         avg(state_of_charge) AS "socAvg", min(state_of_charge) AS "socMin", max(state_of_charge) AS "socMax",
         avg(battery_voltage) AS "voltageAvg", avg(grid_voltage) AS "gridVoltageAvg",
         avg(grid_frequency) AS "gridFreqAvg", count(*)::int AS "sampleCount"
    FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3
   GROUP BY date_trunc('day', ts, 'UTC') ORDER BY 1`;

const RAW_SUMMARY = `
  SELECT count(*)::int AS "dataPoints",
         avg(solar_power) AS "avgSolarPower", max(solar_power) AS "maxSolarPower",
         avg(state_of_charge) AS "avgStateOfCharge", min(state_of_charge) AS "minStateOfCharge",
         avg(battery_voltage) AS "avgBatteryVoltage", avg(load_power) AS "avgLoadPower",
         max(load_power) AS "maxLoadPower"
    FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 AND ts <= $3`;

describe('hourly rollup (telemetry_hourly) kept at ingestion time', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  /** A second api instance on the same database: a second writer. */
  let otherApp: INestApplication;
  let db: Client;
  let cookie: string;

  beforeAll(async () => {
    env = await createTestEnvironment();
    [{ app, http }, { app: otherApp }] = await Promise.all([
      startApi(env.config, new FakeClock(NOW)),
      startApi(env.configWith({}), new FakeClock(NOW)),
    ]);
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    ({ cookie } = await signUp(http, env.mail));
  });

  afterAll(async () => {
    await db.end();
    await Promise.all([app.close(), otherApp.close()]);
    await env.teardown();
  });

  const createSource = () => createWebhookSource(http, cookie, { name: 'Rollup' });

  /** Through the webhook: normalization, the Redis windows, the batched writer. */
  async function sendWebhook(source: { id: string; secret: string }, payload: Payload): Promise<void> {
    const response = await http
      .post(`/api/webhook/sunsource/${source.id}`)
      .send({ key: source.secret, ...payload });
    expect(response.status).toBe(200);
  }

  /** Straight to a writer, as the synthetic history and the MQTT consumer do: many points per batch. */
  async function write(on: INestApplication, points: TelemetryPoint[]): Promise<boolean[]> {
    const writer = on.get(TelemetryWriter);
    return Promise.all(points.map(async (point) => (await writer.write(point)) === 'stored'));
  }

  const rollup = async (ids: string[]) =>
    (
      await db.query('SELECT * FROM telemetry_hourly WHERE sun_source_id = ANY($1::uuid[]) ORDER BY 1, 2', [
        ids,
      ])
    ).rows;
  const energyReadings = async (ids: string[]) =>
    (await db.query<EnergyRow>(RAW_ENERGY_READINGS, [ids])).rows;

  async function rollupFromRaw(ids: string[]): Promise<Array<Record<string, unknown>>> {
    const readings = await energyReadings(ids);
    const hourOf = (row: { sun_source_id: string; ts?: Date; hour?: Date }) =>
      `${row.sun_source_id}|${Math.floor((row.ts ?? row.hour)!.getTime() / HOUR)}`;
    const byHour = new Map<string, EnergyRow[]>();
    for (const row of readings) byHour.set(hourOf(row), [...(byHour.get(hourOf(row)) ?? []), row]);
    const before = (row: { sun_source_id: string; hour: Date }) =>
      readings.filter((earlier) => earlier.sun_source_id === row.sun_source_id && earlier.ts < row.hour);
    return (await db.query(ROLLUP_FROM_RAW, [ids])).rows.map((row) => ({
      ...row,
      ...hourEnergyColumns(byHour.get(hourOf(row))!, before(row)),
    }));
  }

  async function expectRollupMatchesRaw(ids: string[]): Promise<void> {
    const expected = await rollupFromRaw(ids);
    expect(expected.length).toBeGreaterThan(0);
    expect(await rollup(ids)).toEqual(roughly(expected));
  }

  const rawCount = async (id: string) =>
    (await db.query('SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1', [id])).rows[0].n;

  /**
   * Random points of `sources` over three days (hour and day boundaries, points on the hour),
   * some through the webhook, most through the writer in batches, then every fifth point again
   * with other values: stored once, counted once.
   */
  async function ingestRandomly(seed: number, sources: Array<{ id: string; secret: string }>): Promise<void> {
    const random = seededRandom(seed);
    for (const source of sources) {
      // Minutes apart, so the 10-second throttle lets them through.
      let ts = RECENT + Math.floor(random() * HOUR);
      for (let i = 0; i < 15; i++) {
        await sendWebhook(source, payloadAt(random, ts));
        ts += Math.floor(random() * 4 * HOUR) + MINUTE;
      }
    }
    const points = sources.flatMap((source) =>
      instants(random, RECENT, 3 * DAY, 400).map((ts) => pointOf(source.id, payloadAt(random, ts))),
    );
    await write(app, points);
    const resent = points.filter((_, index) => index % 5 === 0);
    const again = await write(
      app,
      resent.map((point) => pointOf(point.sunSourceId, payloadAt(random, point.ts.getTime()))),
    );
    expect(again.every((stored) => !stored)).toBe(true);
  }

  it('after random ingestion with duplicates, every hour is the GROUP BY of its raw rows (seed 20261122)', async () => {
    const sources = [await createSource(), await createSource()];
    await ingestRandomly(20261122, sources);
    const ids = sources.map((source) => source.id);
    const expected = await rollupFromRaw(ids);
    // Several points in most hours, so sums and counts really were added up.
    expect(expected.length).toBeLessThan((await rawCount(ids[0])) + (await rawCount(ids[1])));
    expect(await rollup(ids)).toEqual(roughly(expected));
  });

  it('two api instances writing the same points at once store and count each once (seeds 1-3)', async () => {
    const sources = await Promise.all(Array.from({ length: 8 }, () => createSource()));
    const ids = sources.map((source) => source.id);
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      // Off the hour: a point of one writer's own must not take the key of a shared one.
      const pointsOf = (count: number) =>
        instants(random, RECENT, 6 * HOUR, count, 0).map((ts) =>
          pointOf(ids[Math.floor(random() * ids.length)], payloadAt(random, ts)),
        );
      const shared = pointsOf(1500);
      // The same points in opposite orders, each writer with points of its own among them.
      const [first, second] = await Promise.all([
        write(app, [...shared, ...pointsOf(500)]),
        write(otherApp, [...pointsOf(500), ...[...shared].reverse()]),
      ]);
      const keys = new Set(shared.map((point) => `${point.sunSourceId}|${point.ts.getTime()}`));
      const storedShared =
        first.slice(0, shared.length).filter(Boolean).length + second.slice(500).filter(Boolean).length;
      expect(storedShared).toBe(keys.size);
    }
    await expectRollupMatchesRaw(ids);
  });

  it('hourly, daily and report answers over ranges starting and ending anywhere equal the raw computation (seed 7)', async () => {
    const source = await createSource();
    await ingestRandomly(7, [source]);
    const random = seededRandom(7);
    const lengths = [0, 1, 20 * MINUTE, 59 * MINUTE, HOUR, HOUR + 1, 3 * HOUR, DAY, 2.5 * DAY, 4 * DAY];
    const ranges: Array<[number, number]> = [];
    for (const length of lengths) {
      for (let i = 0; i < 3; i++) {
        let start = RECENT - 2 * HOUR + Math.floor(random() * (3 * DAY + 4 * HOUR - length));
        // Either end on the hour now and then: the hour ending at `end` is whole, the next is not.
        if (i === 1) start = Math.floor(start / HOUR) * HOUR;
        let end = start + length;
        if (i === 2) end = Math.ceil(end / HOUR) * HOUR;
        ranges.push([start, end]);
      }
    }
    // Both ends exactly on stored points that are on the hour.
    const { rows: onTheHour } = await db.query<{ ts: Date }>(
      `SELECT ts FROM telemetry WHERE sun_source_id = $1 AND ts = date_trunc('hour', ts, 'UTC') ORDER BY ts`,
      [source.id],
    );
    expect(onTheHour.length).toBeGreaterThan(2);
    ranges.push([onTheHour[0].ts.getTime(), onTheHour[onTheHour.length - 1].ts.getTime()]);
    ranges.push([onTheHour[1].ts.getTime(), onTheHour[1].ts.getTime()]);

    for (const [start, end] of ranges) {
      const from = new Date(start).toISOString();
      const to = new Date(end).toISOString();
      const parameters = [source.id, from, to];

      const hourly = await http
        .get(`/api/sunsourcemetrics/${source.id}/aggregated?startTime=${from}&endTime=${to}`)
        .set('Cookie', cookie)
        .expect(200);
      const rawHours = (await db.query(RAW_HOURLY, parameters)).rows.map((row) => ({
        ...row,
        timestamp: row.timestamp.toISOString(),
      }));
      expect({ from, to, hours: hourly.body }).toEqual({ from, to, hours: roughly(rawHours) });

      const daily = await http
        .get(`/api/sunsourcemetrics/${source.id}/daily-summary?startTime=${from}&endTime=${to}`)
        .set('Cookie', cookie)
        .expect(200);
      const energy = energyByDay(await energyReadings([source.id]), start, end);
      const rawDays = (await db.query(RAW_DAILY, parameters)).rows.map((row) => {
        const { produced, consumed } = energy.get(row.date) ?? {};
        return {
          ...row,
          energyProduced: produced?.kwh ?? null,
          energyConsumed: consumed?.kwh ?? null,
          energyProducedMethod: produced?.method ?? null,
          energyConsumedMethod: consumed?.method ?? null,
        };
      });
      expect({ from, to, days: daily.body }).toEqual({ from, to, days: roughly(rawDays) });

      const report = await http
        .get(`/api/sunsourcedata/report/${source.id}?period=custom&startDateParam=${from}&endDateParam=${to}`)
        .set('Cookie', cookie)
        .expect(200);
      const { dataPoints, ...figures } = (await db.query(RAW_SUMMARY, parameters)).rows[0];
      const total = (direction: 'produced' | 'consumed') =>
        [...energy.values()].reduce((sum, day) => sum + (day[direction]?.kwh ?? 0), 0);
      const summary = {
        ...figures,
        totalEnergyProduced: total('produced'),
        totalEnergyConsumed: total('consumed'),
      };
      expect({ from, to, dataPoints: report.body.dataPoints, summary: report.body.summary }).toEqual({
        from,
        to,
        dataPoints,
        summary: { ...(roughly(summary) as object), operatingModes: expect.any(Array) },
      });
      expect(report.body.hourlyData).toEqual(roughly(rawHours));
    }
  });

  it('after downsampling, the hours it compacted are recounted (seed 11)', async () => {
    const [source, untouched] = [await createSource(), await createSource()];
    const random = seededRandom(11);
    // Several points per 5-minute bucket around hour boundaries, 40 days ago, and recent ones.
    const old = instants(random, OLD - 20 * MINUTE, 3 * HOUR, 300);
    const recent = instants(random, NOW.getTime() - 2 * DAY, DAY, 100);
    for (const id of [source.id, untouched.id]) {
      await write(
        app,
        [...old, ...recent].map((ts) => pointOf(id, payloadAt(random, ts))),
      );
    }
    const ids = [source.id, untouched.id];
    await expectRollupMatchesRaw(ids);
    const before = await rollup([source.id]);

    const response = await http
      .post(`/api/sunsourcedata/downsample/${source.id}`)
      .set('Cookie', cookie)
      .expect(200);
    expect(response.body.rowsRemoved).toBeGreaterThan(0);

    await expectRollupMatchesRaw(ids);
    // It did change the old hours (fewer samples), so the comparison above tested the recount.
    const after = await rollup([source.id]);
    const samples = (rows: Array<{ sample_count: number }>) =>
      rows.reduce((total, row) => total + row.sample_count, 0);
    expect(samples(after)).toBe(await rawCount(source.id));
    expect(samples(after)).toBeLessThan(samples(before));
  });

  it('cleanup removes the rollup with the rows, and ingestion afterwards starts it afresh (seed 13)', async () => {
    const [source, kept] = [await createSource(), await createSource()];
    await ingestRandomly(13, [source, kept]);
    await http.delete(`/api/sunsourcedata/cleanup/${source.id}`).set('Cookie', cookie).expect(200);
    expect(await rollup([source.id])).toEqual([]);
    await expectRollupMatchesRaw([kept.id]);

    const random = seededRandom(14);
    await write(
      app,
      instants(random, RECENT, DAY, 200).map((ts) => pointOf(source.id, payloadAt(random, ts))),
    );
    await expectRollupMatchesRaw([source.id, kept.id]);
  });

  it('deleting the source deletes its rollup (seed 17)', async () => {
    const source = await createSource();
    await ingestRandomly(17, [source]);
    expect((await rollup([source.id])).length).toBeGreaterThan(0);
    await http
      .delete(`/api/sunsources/${source.id}`)
      .set('Cookie', cookie)
      .expect((response) => {
        expect(response.status).toBeLessThan(300);
      });
    expect(await rollup([source.id])).toEqual([]);
  });
});
