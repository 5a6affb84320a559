import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from '@solar/config';
import { configureHttpApp } from '@solar/platform';
import { SchedulerModule, SchedulerOptions } from './scheduler.module';

/** The scheduler with its crons and health endpoint, initialised but not listening. */
export async function createSchedulerApp(
  config: AppConfig,
  options: SchedulerOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(SchedulerModule.forRoot(config, options), {
    bodyParser: false,
    bufferLogs: true,
  });
  configureHttpApp(app, config, { servesMetrics: true });
  await app.init();
  return app;
}
