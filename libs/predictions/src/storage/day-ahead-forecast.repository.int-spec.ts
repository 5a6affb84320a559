import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DayAheadHour } from '@solar/forecast';
import { insertSpecSources, insertSpecUser, openSpecDatabase, SpecDatabase } from '@solar/testing';
import { DayAheadForecastRepository, StoredDayAheadForecast } from './day-ahead-forecast.repository';
import { PredictionHistoryRepository } from './prediction-history.repository';

const HOUR: DayAheadHour = {
  solarPower: 1,
  loadPower: 2,
  stateOfCharge: 3,
  physicsSolarPower: 4,
  physicsLoadPower: 5,
  clearSkyPower: 6,
  daytime: true,
};

function kept(date: string, issuedAt: string, solarPower: number): StoredDayAheadForecast {
  return {
    date,
    issuedAt: new Date(issuedAt),
    jobId: `predict_${solarPower}`,
    model: 'learned',
    modelTrainedAt: new Date('2026-06-01T00:00:00Z'),
    hours: Array.from({ length: 24 }, () => ({ ...HOUR, solarPower })),
    previousDayClearSky: Array.from({ length: 24 }, (_, hour) => hour),
  };
}

describe('DayAheadForecastRepository and the measured hours', () => {
  let database: SpecDatabase;
  let db: Client;
  let dataSource: DataSource;
  let repository: DayAheadForecastRepository;
  let history: PredictionHistoryRepository;
  let sourceId: string;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    database = await openSpecDatabase();
    ({ db, dataSource } = database);
    repository = new DayAheadForecastRepository(dataSource);
    history = new PredictionHistoryRepository(dataSource);
    [sourceId] = await insertSpecSources(db, await insertSpecUser(db));
  });

  afterAll(async () => {
    await database?.close();
  });

  it('keeps per day the forecast issued last, whatever order the jobs end in', async () => {
    await repository.keep(sourceId, kept('2026-06-11', '2026-06-10T12:30:00Z', 10));
    await repository.keep(sourceId, kept('2026-06-11', '2026-06-10T18:30:00Z', 20));
    // A job that started earlier and ended later does not replace the later forecast.
    await repository.keep(sourceId, kept('2026-06-11', '2026-06-10T06:30:00Z', 30));
    await repository.keep(sourceId, kept('2026-06-12', '2026-06-11T18:30:00Z', 40));

    const [eleventh, twelfth] = await repository.between(sourceId, '2026-06-01', '2026-06-30');
    expect(eleventh).toEqual(kept('2026-06-11', '2026-06-10T18:30:00Z', 20));
    expect(twelfth.hours[0].solarPower).toBe(40);
  });

  it('reads the days of a range, both ends included, of that source only', async () => {
    const dates = async (from: string, to: string, id = sourceId) =>
      (await repository.between(id, from, to)).map((forecast) => forecast.date);
    expect(await dates('2026-06-11', '2026-06-11')).toEqual(['2026-06-11']);
    expect(await dates('2026-06-12', '2026-06-20')).toEqual(['2026-06-12']);
    expect(await dates('2026-06-01', '2026-06-10')).toEqual([]);
    expect(await dates('2026-06-01', '2026-06-30', randomUUID())).toEqual([]);
  });

  it('reads measured hours from the hourly rollup: means, null where a field had no value', async () => {
    await db.query(`SELECT ensure_telemetry_partition('2026-06-01'::date)`);
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, solar_power, load_power, state_of_charge, raw)
       VALUES ($1, '2026-06-10T10:10:00Z', 1000, 300, NULL, '{}'),
              ($1, '2026-06-10T10:40:00Z', 2000, NULL, NULL, '{}'),
              ($1, '2026-06-10T12:00:00Z', NULL, NULL, 55, '{}')`,
      [sourceId],
    );
    await db.query(`SELECT rebuild_telemetry_hourly($1, '2026-06-10', '2026-06-11')`, [sourceId]);
    expect(
      await history.measuredHours(
        sourceId,
        new Date('2026-06-10T00:00:00Z'),
        new Date('2026-06-10T12:00:00Z'),
      ),
    ).toEqual([
      { hour: new Date('2026-06-10T10:00:00Z'), solarPower: 1500, loadPower: 300, stateOfCharge: null },
    ]);
    expect(
      await history.measuredHours(
        sourceId,
        new Date('2026-06-10T11:00:00Z'),
        new Date('2026-06-11T00:00:00Z'),
      ),
    ).toEqual([
      { hour: new Date('2026-06-10T12:00:00Z'), solarPower: null, loadPower: null, stateOfCharge: 55 },
    ]);
  });
});
