import { Injectable, Logger } from '@nestjs/common';
import { Clock, eachConcurrently } from '@solar/core';
import { coordinatesOf, ScheduledSource, SettingType, SunSourcesService } from '@solar/domain';
import { RETRAINING_RULE, retrainingCutoffs } from '@solar/forecast';
import { ForecastModelRepository } from '../storage/forecast-model.repository';
import { PredictionRunner } from './prediction-runner';

export interface ScheduledPredictionCounts {
  /** Sources whose model was trained again before their forecast. */
  retrained: number;
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
 * How much training again (of the models `RETRAINING_RULE` finds due) a run does: one at a time,
 * the longest untrained first, at most `perRun` and none started after `minutesPerRun` (a year's
 * training with weather took 3.4 s on the fleet bench's sources, docs/performance.md). A run
 * that finds a whole fleet due, the first after an upgrade, still ends well within its slot, and
 * the rest wait for the next runs.
 */
export const RETRAINING = { perRun: 100, minutesPerRun: 10 } as const;

/**
 * The scheduler's prediction job: one forecast for every active source with coordinates of every
 * user whose setting 1 (AutoRunPredictions) is "1", a few at a time, each failure confined to its
 * source. First, the models of those sources that are due are trained again (`RETRAINING_RULE`
 * of libs/forecast, within `RETRAINING`).
 */
@Injectable()
export class ScheduledPredictions {
  private readonly logger = new Logger(ScheduledPredictions.name);

  constructor(
    private readonly sources: SunSourcesService,
    private readonly runner: PredictionRunner,
    private readonly models: ForecastModelRepository,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<ScheduledPredictionCounts> {
    const counts: ScheduledPredictionCounts = { retrained: 0, predicted: 0, failed: 0, skipped: 0 };
    const due: ScheduledSource[] = [];
    for (const source of await this.sources.scheduledSources(SettingType.AutoRunPredictions)) {
      if (source.isActive && coordinatesOf(source)) due.push(source);
      else counts.skipped += 1;
    }
    try {
      counts.retrained = await this.retrainDueModels(due);
    } catch (error) {
      // The forecasts go on from the models stored.
      this.logger.error({ err: error }, 'could not train the due models again');
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

  /** Trains again, one at a time, the models of `sources` that are due; says how many it stored. */
  private async retrainDueModels(sources: readonly ScheduledSource[]): Promise<number> {
    const now = this.clock.now();
    const stopAt = now.getTime() + RETRAINING.minutesPerRun * 60_000;
    const dueModels = await this.models.dueForRetraining(
      sources.map((source) => source.id),
      {
        ...retrainingCutoffs(now),
        fullYearHours: RETRAINING_RULE.fullYearHours,
      },
      RETRAINING.perRun,
    );
    let retrained = 0;
    for (const { sunSourceId, trainedAt } of dueModels) {
      if (this.clock.now().getTime() >= stopAt) break;
      if (await this.runner.retrain(sunSourceId, trainedAt)) retrained += 1;
    }
    return retrained;
  }
}
