import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { TrainedModel } from '@solar/forecast';
import { insertSpecSources, insertSpecUser, openSpecDatabase, SpecDatabase } from '@solar/testing';
import { ForecastModelRepository } from './forecast-model.repository';

const NOW = new Date('2026-06-10T12:30:00Z');
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS);

/** What the repository reads of a model; the rest is opaque JSON to it. */
const model = (dataPointsUsed: number, rmse = 1) =>
  ({ dataPointsUsed, metrics: { mae: 1, rmse, r2: 0.5 } }) as unknown as TrainedModel;

describe('ForecastModelRepository', () => {
  let database: SpecDatabase;
  let db: Client;
  let repository: ForecastModelRepository;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    database = await openSpecDatabase();
    db = database.db;
    repository = new ForecastModelRepository(database.dataSource);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('finds the models trained long ago: young ones after 30 days, any after a year, oldest first', async () => {
    const [young, youngLater, fresh, full, fullYearOld, untrained, notAsked] = await insertSpecSources(
      db,
      await insertSpecUser(db),
      7,
    );
    await repository.save(young, model(480), daysAgo(45));
    await repository.save(youngLater, model(7_919), daysAgo(30));
    await repository.save(fresh, model(480), daysAgo(29));
    await repository.save(full, model(7_920), daysAgo(364));
    await repository.save(fullYearOld, model(8_700), daysAgo(365));
    await repository.save(notAsked, model(480), daysAgo(400));
    const asked = [young, youngLater, fresh, full, fullYearOld, untrained];
    const due = { trainedBefore: daysAgo(30), fewerHoursThan: 7_920, anyTrainedBefore: daysAgo(365) };

    expect(await repository.trainedLongAgo(asked, due, 10)).toEqual([
      { sunSourceId: fullYearOld, trainedAt: daysAgo(365) },
      { sunSourceId: young, trainedAt: daysAgo(45) },
      { sunSourceId: youngLater, trainedAt: daysAgo(30) },
    ]);
    expect(await repository.trainedLongAgo(asked, due, 2)).toEqual([
      { sunSourceId: fullYearOld, trainedAt: daysAgo(365) },
      { sunSourceId: young, trainedAt: daysAgo(45) },
    ]);
    expect(await repository.trainedLongAgo([], due, 10)).toEqual([]);
  });

  it('replaces a model by a newer training only if it is still the one trained at the given time', async () => {
    const [id] = await insertSpecSources(db, await insertSpecUser(db));
    await repository.save(id, model(480), daysAgo(40));

    expect(await repository.replaceTrainedAt(id, daysAgo(41), model(960, 2), NOW)).toBe(false);
    expect(await repository.info(id)).toMatchObject({ trainedAt: daysAgo(40), dataPointsUsed: 480 });

    expect(await repository.replaceTrainedAt(id, daysAgo(40), model(960, 2), NOW)).toBe(true);
    expect(await repository.info(id)).toEqual({
      trainedAt: NOW,
      dataPointsUsed: 960,
      metrics: { mae: 1, rmse: 2, r2: 0.5 },
      servedModel: null,
    });
    expect((await repository.stored(id))?.model).toEqual(model(960, 2));
  });
});
