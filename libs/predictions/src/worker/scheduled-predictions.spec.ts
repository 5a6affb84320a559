import { Clock } from '@solar/core';
import { ScheduledSource, SunSourcesService } from '@solar/domain';
import { ForecastModelRepository } from '../storage/forecast-model.repository';
import { PredictionRunner } from './prediction-runner';
import { RETRAINING, ScheduledPredictions } from './scheduled-predictions';

const NOW = new Date('2026-06-10T12:30:00Z');
const DAY_MS = 86_400_000;
const clock: Clock = { now: () => new Date(NOW) };

const located = (id: string, fields: Partial<ScheduledSource> = {}): ScheduledSource => ({
  id,
  userId: `owner-of-${id}`,
  isActive: true,
  latitude: 52.52,
  longitude: 13.4,
  ...fields,
});

/** A runner whose runs wait until the test lets them end, recording how many ran at once. */
class HeldRunner {
  readonly started: string[] = [];
  running = 0;
  training = 0;
  most = 0;
  private readonly waiting: Array<() => void> = [];

  /** What happened, in order: `retrain:<id>` and `forecast:<id>`. */
  readonly events: string[] = [];

  async retrain(sunSourceId: string, replacing: Date) {
    this.events.push(`retrain:${sunSourceId}`);
    expect(replacing).toBeInstanceOf(Date);
    // One at a time, and before any forecast.
    this.training += 1;
    expect({ training: this.training, forecasting: this.running }).toEqual({ training: 1, forecasting: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    this.training -= 1;
    return sunSourceId !== 'refused';
  }

  async runScheduled(source: { id: string }) {
    this.events.push(`forecast:${source.id}`);
    this.started.push(source.id);
    this.running += 1;
    this.most = Math.max(this.most, this.running);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running -= 1;
    if (source.id === 'throws') throw new Error('connection lost');
    return { jobId: `scheduled-${source.id}`, status: source.id === 'fails' ? 'failed' : 'completed' };
  }

  /** Lets every forecast end as they start, until `run` has ended; gives it back. */
  async finish<T>(run: Promise<T>): Promise<T> {
    let ended = false;
    void run.finally(() => (ended = true)).catch(() => undefined);
    while (!ended) {
      await this.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return run;
  }

  /** Lets every run started so far end, until none is left. */
  async drain(): Promise<void> {
    while (this.waiting.length > 0 || this.running > 0) {
      this.waiting.splice(0).forEach((release) => release());
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

describe('ScheduledPredictions', () => {
  it('forecasts the due sources four at a time, each failure confined to its source', async () => {
    const sources = [
      located('fails'),
      located('throws'),
      located('inactive', { isActive: false }),
      located('unlocated', { latitude: null, longitude: null }),
      ...Array.from({ length: 8 }, (_, index) => located(`s${index}`)),
    ];
    const runner = new HeldRunner();
    const scheduled = new ScheduledPredictions(
      { scheduledSources: async () => sources } as unknown as SunSourcesService,
      runner as unknown as PredictionRunner,
      { dueForRetraining: async () => [] } as unknown as ForecastModelRepository,
      clock,
    );
    const run = scheduled.run();
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    // Four started, the fifth waits for one of them to end.
    expect(runner.started).toEqual(['fails', 'throws', 's0', 's1']);
    await runner.drain();
    await expect(run).resolves.toEqual({ retrained: 0, predicted: 8, failed: 2, skipped: 2 });
    expect(runner.started).toEqual([
      'fails',
      'throws',
      ...Array.from({ length: 8 }, (_, index) => `s${index}`),
    ]);
    expect(runner.most).toBe(4);
  });

  it('first trains again, one at a time, the models the repository finds due, then forecasts', async () => {
    const sources = [
      located('young'),
      located('refused'),
      located('fresh'),
      located('inactive', { isActive: false }),
    ];
    const asked: unknown[] = [];
    const runner = new HeldRunner();
    const scheduled = new ScheduledPredictions(
      { scheduledSources: async () => sources } as unknown as SunSourcesService,
      runner as unknown as PredictionRunner,
      {
        dueForRetraining: async (...args: unknown[]) => {
          asked.push(args);
          return [
            { sunSourceId: 'young', trainedAt: new Date(NOW.getTime() - 40 * DAY_MS) },
            { sunSourceId: 'refused', trainedAt: new Date(NOW.getTime() - 31 * DAY_MS) },
          ];
        },
      } as unknown as ForecastModelRepository,
      clock,
    );
    const run = runner.finish(scheduled.run());
    await expect(run).resolves.toEqual({ retrained: 1, predicted: 3, failed: 0, skipped: 1 });
    expect(runner.events).toEqual([
      'retrain:young',
      'retrain:refused',
      'forecast:young',
      'forecast:refused',
      'forecast:fresh',
    ]);
    // Asked of the active located sources only, with the rule's moments.
    expect(asked).toEqual([
      [
        ['young', 'refused', 'fresh'],
        {
          youngTrainedBefore: new Date(NOW.getTime() - 30 * DAY_MS),
          fullYearHours: 330 * 24,
          anyTrainedBefore: new Date(NOW.getTime() - 365 * DAY_MS),
          failedBefore: new Date(NOW.getTime() - 30 * DAY_MS),
        },
        RETRAINING.perRun,
      ],
    ]);
  });

  it('starts no training after ten minutes of them', async () => {
    const sources = Array.from({ length: 5 }, (_, index) => located(`due${index}`));
    const runner = new HeldRunner();
    // Each training takes four minutes of the clock.
    const trainings = () => runner.events.filter((event) => event.startsWith('retrain:')).length;
    const slowClock: Clock = { now: () => new Date(NOW.getTime() + trainings() * 4 * 60_000) };
    const scheduled = new ScheduledPredictions(
      { scheduledSources: async () => sources } as unknown as SunSourcesService,
      runner as unknown as PredictionRunner,
      {
        dueForRetraining: async () =>
          sources.map((source) => ({
            sunSourceId: source.id,
            trainedAt: new Date(NOW.getTime() - 40 * DAY_MS),
          })),
      } as unknown as ForecastModelRepository,
      slowClock,
    );
    const run = runner.finish(scheduled.run());
    // Started at 0, 4 and 8 minutes; at 12 the budget of 10 is spent.
    expect(RETRAINING.minutesPerRun).toBe(10);
    await expect(run).resolves.toEqual({ retrained: 3, predicted: 5, failed: 0, skipped: 0 });
    expect(runner.events.slice(0, 4)).toEqual([
      'retrain:due0',
      'retrain:due1',
      'retrain:due2',
      'forecast:due0',
    ]);
  });

  it('forecasts from the stored models when the due ones cannot be listed', async () => {
    const runner = new HeldRunner();
    const scheduled = new ScheduledPredictions(
      { scheduledSources: async () => [located('a'), located('b')] } as unknown as SunSourcesService,
      runner as unknown as PredictionRunner,
      {
        dueForRetraining: async () => {
          throw new Error('connection lost');
        },
      } as unknown as ForecastModelRepository,
      clock,
    );
    await expect(runner.finish(scheduled.run())).resolves.toEqual({
      retrained: 0,
      predicted: 2,
      failed: 0,
      skipped: 0,
    });
    expect(runner.events).toEqual(['forecast:a', 'forecast:b']);
  });
});
