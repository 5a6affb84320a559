import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@solar/core';
import { ScheduledWeatherRefresh, UnverifiedAccountCleanup } from '@solar/domain';
import { scheduledTaskDuration, scheduledTaskRuns } from '@solar/monitoring';
import { ScheduledPredictions } from '@solar/predictions';
import { RedisLocks } from '@solar/redis';
import { TelemetryDownsampler } from '@solar/telemetry';

export const JOB_NAMES = ['downsample', 'weather', 'predict', 'unverified-accounts'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export type JobReport =
  | { job: JobName; status: 'completed'; durationMs: number; counts: Record<string, number> }
  | { job: JobName; status: 'skipped'; reason: string }
  | { job: JobName; status: 'failed'; durationMs: number; error: string };

/** A replica that fires the same schedule slot later than this has nothing left to do. */
const SLOT_MEMORY_MS = 6 * 3_600_000;
/** Longest a job may hold its running lock; a crashed run frees it after this. */
const MAX_RUN_MS = 3_600_000;

/**
 * Runs the scheduler's jobs, once per schedule slot however many scheduler replicas fire it,
 * and never two runs of one job at the same time. Every run is logged with its counts and
 * duration.
 */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger(JobRunner.name);
  private readonly jobs: Record<JobName, () => Promise<Record<string, number>>>;

  constructor(
    private readonly locks: RedisLocks,
    private readonly clock: Clock,
    downsampler: TelemetryDownsampler,
    weatherRefresh: ScheduledWeatherRefresh,
    predictions: ScheduledPredictions,
    unverifiedAccounts: UnverifiedAccountCleanup,
  ) {
    this.jobs = {
      downsample: async () => ({ ...(await downsampler.downsampleAll(this.clock.now())) }),
      weather: async () => ({ ...(await weatherRefresh.run()) }),
      predict: async () => ({ ...(await predictions.run()) }),
      'unverified-accounts': async () => ({ ...(await unverifiedAccounts.run()) }),
    };
  }

  /** `slot`: the scheduled moment this run answers to (absent for a run by hand). */
  async run(job: JobName, slot?: Date): Promise<JobReport> {
    if (slot && !(await this.locks.acquire(`jobs:${job}:slot:${slot.toISOString()}`, SLOT_MEMORY_MS))) {
      return this.report({ job, status: 'skipped', reason: 'this slot already ran on another instance' });
    }
    const runningKey = `jobs:${job}:running`;
    const token = await this.locks.acquire(runningKey, MAX_RUN_MS);
    if (!token) return this.report({ job, status: 'skipped', reason: 'already running' });

    const started = Date.now();
    try {
      const counts = await this.jobs[job]();
      return this.report({ job, status: 'completed', durationMs: Date.now() - started, counts });
    } catch (error) {
      this.logger.error({ err: error, job }, 'job failed');
      return this.report({ job, status: 'failed', durationMs: Date.now() - started, error: String(error) });
    } finally {
      await this.locks.release(runningKey, token);
    }
  }

  /** Logged, and counted in the scheduled-task metrics. */
  private report(report: JobReport): JobReport {
    scheduledTaskRuns.inc({ task: report.job, status: report.status });
    if (report.status !== 'skipped')
      scheduledTaskDuration.observe({ task: report.job }, report.durationMs / 1000);
    this.logger.log({ msg: `job ${report.job} ${report.status}`, ...report });
    return report;
  }
}
