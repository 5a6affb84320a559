import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { Clock, ClockModule } from '@solar/core';
import { AccountCleanupModule, WeatherModule } from '@solar/domain';
import { HealthModule, LoggingModule, MetricsEndpointModule } from '@solar/platform';
import { ForecastCompute, PredictionWorkerModule } from '@solar/predictions';
import { RedisModule } from '@solar/redis';
import { TelemetryQueryModule } from '@solar/telemetry';
import { TelemetryImportWorkerModule } from '@solar/telemetry-import';
import { JobRunner } from './jobs/job-runner';
import { ScheduledJobs } from './jobs/scheduled-jobs';

export interface SchedulerOptions {
  /** false for a one-off run (`npm run job`): the jobs without their crons. */
  crons?: boolean;
  /** Replaces the system clock (tests). */
  clock?: Clock;
  /** Where the forecasting model runs; default: a worker thread per computation. */
  forecastCompute?: ForecastCompute;
}

/** Crons, the job runner and the workers of the forecasting and telemetry import queues. */
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
        AccountCleanupModule,
        // The queue consumer runs with the crons, not in a one-off `npm run job`.
        PredictionWorkerModule.forRoot({ compute: options.forecastCompute, consume: crons }),
        // Health and metrics on the scheduler's own port, which no deployment publishes.
        ...(crons
          ? [
              ScheduleModule.forRoot(),
              HealthModule.forRoot(),
              MetricsEndpointModule,
              TelemetryImportWorkerModule,
            ]
          : []),
      ],
      providers: [JobRunner, ...(crons ? [ScheduledJobs] : [])],
      exports: [JobRunner],
    };
  }
}
