import { Injectable, Logger } from '@nestjs/common';
import { eachConcurrently } from '@solar/core';
import { coordinatesOf, ScheduledSource, SettingType, SunSourcesService } from '@solar/domain';
import { PredictionRunner } from './prediction-runner';

export interface ScheduledPredictionCounts {
  /** Sources that got a new forecast. */
  predicted: number;
  /** Sources whose forecast failed (never trained, or an error; logged); the others went on. */
  failed: number;
  /** Inactive sources and sources without coordinates. */
  skipped: number;
}

/**
 * Sources forecast at a time: while one waits on the database, another computes. The forecasts
 * share the scheduler's thread, so more would only queue (docs/performance.md, "Scheduled
 * forecasts of a fleet").
 */
const CONCURRENCY = 4;

/**
 * The scheduler's prediction job: one forecast for every active source with coordinates of every
 * user whose setting 1 (AutoRunPredictions) is "1", a few at a time, each failure confined to its
 * source.
 */
@Injectable()
export class ScheduledPredictions {
  private readonly logger = new Logger(ScheduledPredictions.name);

  constructor(
    private readonly sources: SunSourcesService,
    private readonly runner: PredictionRunner,
  ) {}

  async run(): Promise<ScheduledPredictionCounts> {
    const counts: ScheduledPredictionCounts = { predicted: 0, failed: 0, skipped: 0 };
    const due: ScheduledSource[] = [];
    for (const source of await this.sources.scheduledSources(SettingType.AutoRunPredictions)) {
      if (source.isActive && coordinatesOf(source)) due.push(source);
      else counts.skipped += 1;
    }
    await eachConcurrently(due, CONCURRENCY, async (source) => {
      try {
        // A failed run is logged, with its reason, by the runner.
        const { status } = await this.runner.runScheduled(source);
        if (status === 'completed') counts.predicted += 1;
        else counts.failed += 1;
      } catch (error) {
        counts.failed += 1;
        this.logger.error({ err: error, sunSourceId: source.id }, 'scheduled prediction failed');
      }
    });
    return counts;
  }
}
