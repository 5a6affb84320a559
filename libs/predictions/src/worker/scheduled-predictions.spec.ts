import { ScheduledSource, SunSourcesService } from '@solar/domain';
import { PredictionRunner } from './prediction-runner';
import { ScheduledPredictions } from './scheduled-predictions';

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
  most = 0;
  private readonly waiting: Array<() => void> = [];

  async runScheduled(source: { id: string }) {
    this.started.push(source.id);
    this.running += 1;
    this.most = Math.max(this.most, this.running);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running -= 1;
    if (source.id === 'throws') throw new Error('connection lost');
    return { jobId: `scheduled-${source.id}`, status: source.id === 'fails' ? 'failed' : 'completed' };
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
    );
    const run = scheduled.run();
    await new Promise((resolve) => setImmediate(resolve));
    // Four started, the fifth waits for one of them to end.
    expect(runner.started).toEqual(['fails', 'throws', 's0', 's1']);
    await runner.drain();
    await expect(run).resolves.toEqual({ predicted: 8, failed: 2, skipped: 2 });
    expect(runner.started).toEqual([
      'fails',
      'throws',
      ...Array.from({ length: 8 }, (_, index) => `s${index}`),
    ]);
    expect(runner.most).toBe(4);
  });
});
