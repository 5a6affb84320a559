import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { Clock } from '@solar/core';
import { JobReport, JobRunner } from './job-runner';

/** The minute a cron fired for: every replica computes the same slot for the same firing. */
const slotOf = (now: Date) => new Date(Math.floor(now.getTime() / 60_000) * 60_000);

/** The crons of the scheduled jobs, and the removal of old unverified accounts, in UTC. */
@Injectable()
export class ScheduledJobs {
  constructor(
    private readonly runner: JobRunner,
    private readonly clock: Clock,
  ) {}

  /** On the hour, so it runs ahead of the prediction job of the same six-hour slot. */
  @Cron('0 */6 * * *', { name: 'weather', timeZone: 'UTC' })
  weather(): Promise<JobReport> {
    return this.runner.run('weather', slotOf(this.clock.now()));
  }

  /** Half an hour after the weather refresh, so each forecast starts from fresh weather. */
  @Cron('30 */6 * * *', { name: 'predict', timeZone: 'UTC' })
  predict(): Promise<JobReport> {
    return this.runner.run('predict', slotOf(this.clock.now()));
  }

  @Cron('0 2 * * 0', { name: 'downsample', timeZone: 'UTC' })
  downsample(): Promise<JobReport> {
    return this.runner.run('downsample', slotOf(this.clock.now()));
  }

  /** Hourly: an unverified account outlives its allowed age by an hour at most. */
  @Cron('15 * * * *', { name: 'unverified-accounts', timeZone: 'UTC' })
  unverifiedAccounts(): Promise<JobReport> {
    return this.runner.run('unverified-accounts', slotOf(this.clock.now()));
  }
}
