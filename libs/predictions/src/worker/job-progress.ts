import { Logger } from '@nestjs/common';
import { Clock } from '@solar/core';
import { PredictionJobRecord } from '../jobs/prediction-job';
import { PredictionJobStore } from '../jobs/prediction-job.store';

/**
 * Writes a running job's progress to its record, in order and without waiting for each write:
 * the model reports progress synchronously and often. Only a rise of a whole percent is written,
 * and the final state is written after every pending update, so none can overwrite it.
 */
export class JobProgress {
  private readonly logger = new Logger(JobProgress.name);
  private written = -1;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: PredictionJobStore,
    private readonly jobId: string,
    private readonly clock: Clock,
  ) {}

  /** 0..99; `message` says what the job does now. */
  report(percent: number, message?: string): void {
    const progress = Math.min(99, Math.max(0, Math.floor(percent)));
    if (progress <= this.written && message === undefined) return;
    this.written = Math.max(this.written, progress);
    const changes: Partial<PredictionJobRecord> = { progress: this.written };
    if (message !== undefined) changes.message = message;
    this.pending = this.pending
      .then(() => this.write(changes))
      .catch((error: unknown) =>
        this.logger.warn({ err: error, jobId: this.jobId }, 'progress not recorded'),
      );
  }

  /** The job's last word (completed or failed), after everything reported before it. */
  async finish(changes: Partial<PredictionJobRecord>): Promise<void> {
    await this.pending;
    await this.write(changes);
  }

  private async write(changes: Partial<PredictionJobRecord>): Promise<void> {
    await this.store.update(this.jobId, { ...changes, updatedAt: this.clock.now().toISOString() });
  }
}
