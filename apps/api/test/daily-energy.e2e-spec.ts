import { INestApplication } from '@nestjs/common';
import { emptyTelemetryValues, TelemetryValues, TelemetryWriter } from '@solar/telemetry';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-12T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const JUNE_8 = Date.parse('2026-06-08T00:00:00Z');
const at = (day: number, hours: number) => JUNE_8 + day * DAY + hours * HOUR;

type Reading = [time: number, values: Partial<TelemetryValues>];

/** Every `step` from `from` to `to` (hours of day `day`), `values` of each instant. */
function every(
  day: number,
  from: number,
  to: number,
  step: number,
  values: (time: number) => Partial<TelemetryValues>,
): Reading[] {
  const readings: Reading[] = [];
  for (let time = at(day, from); time <= at(day, to); time += step) readings.push([time, values(time)]);
  return readings;
}

interface DaySummary {
  date: string;
  energyProduced: number | null;
  energyConsumed: number | null;
  energyProducedMethod: string | null;
  energyConsumedMethod: string | null;
}

describe("a day's energy in the daily summary: counted from counter increments, else from power", () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let cookie: string;

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config, new FakeClock(NOW)));
    ({ cookie } = await signUp(http, env.mail));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  /** A new source with `readings`, stored through the batched writer as ingestion stores them. */
  async function sourceWith(readings: Reading[]): Promise<string> {
    const { id } = await createWebhookSource(http, cookie, { name: 'Energy' });
    const writer = app.get(TelemetryWriter);
    const results = await Promise.all(
      readings.map(([time, values]) =>
        writer.write({
          sunSourceId: id,
          ts: new Date(time),
          receivedAt: NOW,
          values: { ...emptyTelemetryValues(), ...values },
          raw: {},
        }),
      ),
    );
    expect(results.every((result) => result === 'stored')).toBe(true);
    return id;
  }

  async function summary(id: string, start: number, end = NOW.getTime()): Promise<DaySummary[]> {
    const { body } = await http
      .get(
        `/api/sunsourcemetrics/${id}/daily-summary?startTime=${new Date(start).toISOString()}&endTime=${new Date(end).toISOString()}`,
      )
      .set('Cookie', cookie)
      .expect(200);
    return (body as DaySummary[]).map(
      ({ date, energyProduced, energyConsumed, energyProducedMethod, energyConsumedMethod }) => ({
        date,
        energyProduced,
        energyConsumed,
        energyProducedMethod,
        energyConsumedMethod,
      }),
    );
  }

  const kwh = (value: number) => expect.closeTo(value, 9);

  it('a device rebooting at noon keeps its morning: its restarted counter counts from the new value', async () => {
    // 1 kWh an hour: 6 by 11:45; the counter restarts at noon and reaches 6 again by 18:00. The
    // day's highest reading would say 6.
    const id = await sourceWith([
      ...every(0, 6, 11.75, 15 * MINUTE, (time) => ({
        dailyEnergyProduced: (time - at(0, 6)) / HOUR + 0.25,
      })),
      ...every(0, 12, 18, 15 * MINUTE, (time) => ({ dailyEnergyProduced: (time - at(0, 12)) / HOUR })),
    ]);
    expect(await summary(id, at(0, 0))).toEqual([
      {
        date: '2026-06-08',
        energyProduced: kwh(12),
        energyConsumed: null,
        energyProducedMethod: 'counter',
        energyConsumedMethod: null,
      },
    ]);
  });

  it('a lifetime counter: each day gets its own rise, once a reading before it shows no restart at midnight', async () => {
    const lifetime = (time: number) => ({ dailyEnergyProduced: 350 + (time - at(0, 0)) / (2 * HOUR) });
    const id = await sourceWith([
      ...every(0, 8, 20, HOUR, lifetime),
      ...every(1, 8, 20, HOUR, lifetime),
      ...every(2, 8, 20, HOUR, lifetime),
    ]);
    const produced = (days: DaySummary[]) => days.map((day) => [day.date, day.energyProduced]);
    expect(produced(await summary(id, at(0, 0)))).toEqual([
      // Nothing before the first day to compare with: its first reading counts as a daily counter's.
      ['2026-06-08', kwh(360)],
      ['2026-06-09', kwh(6)], // 08:00 to 20:00 at 0.5 kWh an hour
      ['2026-06-10', kwh(6)],
    ]);
    // A range starting later counts from the reading before it.
    expect(produced(await summary(id, at(1, 0)))).toEqual([
      ['2026-06-09', kwh(6)],
      ['2026-06-10', kwh(6)],
    ]);
    // From 14:00: the readings from 14:00 on, each with its rise since the one before (13:00).
    expect(produced(await summary(id, at(1, 14)))).toEqual([
      ['2026-06-09', kwh(3.5)],
      ['2026-06-10', kwh(6)],
    ]);
  });

  it('a source without counters: power integrated over time, trapezoid by trapezoid', async () => {
    const id = await sourceWith(
      every(0, 10, 12, 5 * MINUTE, (time) => ({
        solarPower: time < at(0, 11) ? 1200 : 2400,
        loadPower: 500,
      })),
    );
    expect(await summary(id, at(0, 0))).toEqual([
      {
        date: '2026-06-08',
        // 1.2 kW to 10:55, 1.8 kW on average to 11:00, 2.4 kW to 12:00.
        energyProduced: kwh(1.2 * (55 / 60) + 1.8 / 12 + 2.4),
        energyConsumed: kwh(0.5 * 2),
        energyProducedMethod: 'power',
        energyConsumedMethod: 'power',
      },
    ]);
  });

  it('gaps: power is not integrated across more than 15 minutes; a counter still counts what it rose by', async () => {
    const id = await sourceWith([
      // Load every 15 minutes from 08:00 to 09:00, silent until 12:00, again to 13:00.
      ...every(0, 8, 9, 15 * MINUTE, () => ({ loadPower: 600 })),
      ...every(0, 12, 13, 15 * MINUTE, () => ({ loadPower: 600 })),
      // A produced counter read at 08:00 and 13:00 only.
      [at(0, 8) + 1000, { dailyEnergyProduced: 1 }],
      [at(0, 13) + 1000, { dailyEnergyProduced: 9 }],
      // The next day: load every 16 minutes, each a gap.
      ...every(1, 8, 10, 16 * MINUTE, () => ({ loadPower: 600 })),
    ]);
    expect(await summary(id, at(0, 0))).toEqual([
      {
        date: '2026-06-08',
        energyProduced: kwh(9),
        energyConsumed: kwh(1.2), // two hours at 0.6 kW; the three silent hours count nothing
        energyProducedMethod: 'counter',
        energyConsumedMethod: 'power',
      },
      {
        date: '2026-06-09',
        energyProduced: null,
        energyConsumed: null,
        energyProducedMethod: null,
        energyConsumedMethod: null,
      },
    ]);
  });

  it('weeks beyond 60 days sum their days and say mixed when the days were counted differently', async () => {
    const id = await sourceWith([
      ...every(0, 10, 11, 10 * MINUTE, (time) => ({ dailyEnergyProduced: (time - at(0, 10)) / HOUR })),
      ...every(1, 10, 11, 10 * MINUTE, () => ({ solarPower: 3000 })),
    ]);
    const weeks = await summary(id, NOW.getTime() - 61 * DAY);
    expect(weeks).toEqual([
      {
        date: '2026-06-08',
        energyProduced: kwh(1 + 3),
        energyConsumed: null,
        energyProducedMethod: 'mixed',
        energyConsumedMethod: null,
      },
    ]);
  });

  it('the report sums the days of its range', async () => {
    const id = await sourceWith([
      ...every(0, 10, 11, 10 * MINUTE, () => ({ solarPower: 3000, loadPower: 1200 })),
      ...every(1, 9, 12, HOUR, (time) => ({ dailyEnergyProduced: (time - at(1, 9)) / HOUR + 2 })),
    ]);
    const { body } = await http
      .get(
        `/api/sunsourcedata/report/${id}?period=custom&startDateParam=2026-06-08T00:00:00Z&endDateParam=2026-06-09T23:59:59Z`,
      )
      .set('Cookie', cookie)
      .expect(200);
    expect(body.summary).toMatchObject({ totalEnergyProduced: kwh(3 + 5), totalEnergyConsumed: kwh(1.2) });
  });

  it('documents the methods in the OpenAPI document', async () => {
    const { body } = await http.get('/api/docs-json').expect(200);
    const properties = body.components.schemas.DailySummaryDto.properties;
    for (const key of ['energyProducedMethod', 'energyConsumedMethod']) {
      expect(properties[key]).toMatchObject({
        type: 'string',
        enum: ['counter', 'power', 'mixed'],
        nullable: true,
      });
    }
  });
});
