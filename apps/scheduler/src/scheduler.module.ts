import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { Clock, ClockModule, WeatherModule } from '@solar/domain';
import { HealthModule, LoggingModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';
import { TelemetryQueryModule } from '@solar/telemetry';
import { JobRunner } from './jobs/job-runner';
import { ScheduledJobs } from './jobs/scheduled-jobs';

export interface SchedulerOptions {
  /** false for a one-off run (`npm run job`): the jobs without their crons. */
  crons?: boolean;
  /** Replaces the system clock (tests). */
  clock?: Clock;
}

/** Crons and the job worker. */
@Module({})
export class SchedulerModule {
  static forRoot(config: AppConfig, options: SchedulerOptions = {}): DynamicModule {
    const crons = options.crons ?? true;
    return {
      module: SchedulerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'scheduler'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        options.clock ? ClockModule.with(options.clock) : ClockModule,
        TelemetryQueryModule,
        WeatherModule,
        ...(crons ? [ScheduleModule.forRoot(), HealthModule.forRoot()] : []),
      ],
      providers: [JobRunner, ...(crons ? [ScheduledJobs] : [])],
      exports: [JobRunner],
    };
  }
}
