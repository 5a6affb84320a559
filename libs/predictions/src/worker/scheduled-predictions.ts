import { Injectable, Logger } from '@nestjs/common';
import { coordinatesOf, SettingType, SunSourcesService } from '@solar/domain';
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
 * The scheduler's prediction job: one forecast for every active source with
 * coordinates of every user whose setting 1 (AutoRunPredictions) is "1", one after another (each
 * one already keeps a compute thread busy), each failure confined to its source.
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
    for (const source of await this.sources.scheduledSources(SettingType.AutoRunPredictions)) {
      if (!source.isActive || !coordinatesOf(source)) {
        counts.skipped += 1;
        continue;
      }
      try {
        // A failed run is logged, with its reason, by the runner.
        const { status } = await this.runner.runScheduled(source);
        if (status === 'completed') counts.predicted += 1;
        else counts.failed += 1;
      } catch (error) {
        counts.failed += 1;
        this.logger.error({ err: error, sunSourceId: source.id }, 'scheduled prediction failed');
      }
    }
    return counts;
  }
}
