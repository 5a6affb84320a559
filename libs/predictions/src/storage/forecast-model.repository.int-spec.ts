import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { RETRAINING_RULE, retrainingCutoffs, retrainingDue, TrainedModel } from '@solar/forecast';
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

  it('finds the models due to be trained again, the longest untrained first, as retrainingDue decides', async () => {
    const [young, youngLater, fresh, full, fullYearOld, untrained, notAsked] = await insertSpecSources(
      db,
      await insertSpecUser(db),
      7,
    );
    const stored: Array<[string, number, number]> = [
      [young, 480, 45],
      [youngLater, 7_919, 30],
      [fresh, 480, 29],
      [full, 7_920, 364],
      [fullYearOld, 8_700, 365],
      [notAsked, 480, 400],
    ];
    for (const [id, hours, days] of stored) await repository.save(id, model(hours), daysAgo(days));
    const asked = [young, youngLater, fresh, full, fullYearOld, untrained];
    const due = { ...retrainingCutoffs(NOW), fullYearHours: RETRAINING_RULE.fullYearHours };

    expect(await repository.dueForRetraining(asked, due, 10)).toEqual([
      { sunSourceId: fullYearOld, trainedAt: daysAgo(365) },
      { sunSourceId: young, trainedAt: daysAgo(45) },
      { sunSourceId: youngLater, trainedAt: daysAgo(30) },
    ]);
    // The query and the rule agree, at each edge.
    const dueIds = new Set((await repository.dueForRetraining(asked, due, 10)).map((row) => row.sunSourceId));
    for (const [id, hours, days] of stored.filter(([id]) => asked.includes(id))) {
      expect([id, retrainingDue(daysAgo(days), hours, NOW)]).toEqual([id, dueIds.has(id)]);
    }
    expect(await repository.dueForRetraining(asked, due, 2)).toEqual([
      { sunSourceId: fullYearOld, trainedAt: daysAgo(365) },
      { sunSourceId: young, trainedAt: daysAgo(45) },
    ]);
    expect(await repository.dueForRetraining([], due, 10)).toEqual([]);
  });

  it('leaves a model whose training again failed for 30 days, until a training stores one', async () => {
    const [failedLately, failedLongAgo] = await insertSpecSources(db, await insertSpecUser(db), 2);
    await repository.save(failedLately, model(480), daysAgo(60));
    await repository.save(failedLongAgo, model(480), daysAgo(90));
    await repository.retrainingFailed(failedLately, daysAgo(60), daysAgo(29));
    await repository.retrainingFailed(failedLongAgo, daysAgo(90), daysAgo(30));
    // A note for a model that is no longer the stored one changes nothing.
    await repository.retrainingFailed(failedLongAgo, daysAgo(91), NOW);
    const due = { ...retrainingCutoffs(NOW), fullYearHours: RETRAINING_RULE.fullYearHours };
    const found = async () =>
      (await repository.dueForRetraining([failedLately, failedLongAgo], due, 10)).map(
        (row) => row.sunSourceId,
      );

    expect(await found()).toEqual([failedLongAgo]);
    expect(await repository.replaceTrainedAt(failedLately, daysAgo(60), model(480), daysAgo(45))).toBe(true);
    expect(await found()).toEqual([failedLongAgo, failedLately]);
    await repository.retrainingFailed(failedLongAgo, daysAgo(90), NOW);
    expect(await found()).toEqual([failedLately]);
    // The owner's training clears it too; oldest first.
    await repository.save(failedLongAgo, model(480), daysAgo(31));
    expect(await found()).toEqual([failedLately, failedLongAgo]);
  });

  it('stores a model again in another form, keeping its note of a failed training again', async () => {
    const [id] = await insertSpecSources(db, await insertSpecUser(db));
    await repository.save(id, model(480), daysAgo(60));
    await repository.retrainingFailed(id, daysAgo(60), daysAgo(1));
    const due = { ...retrainingCutoffs(NOW), fullYearHours: RETRAINING_RULE.fullYearHours };
    const packed = { ...model(480), payload: { packed: true } } as unknown as TrainedModel;

    expect(await repository.storeAgain(id, daysAgo(61), packed)).toBe(false);
    expect(await repository.storeAgain(id, daysAgo(60), packed)).toBe(true);
    expect((await repository.stored(id))?.model).toEqual(packed);
    // Still waiting its 30 days since the failure.
    expect(await repository.dueForRetraining([id], due, 10)).toEqual([]);
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
