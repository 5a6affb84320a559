import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from '@solar/config';
import { configureHttpApp } from '@solar/platform';
import { SchedulerModule } from './scheduler.module';

/** The scheduler with its health endpoint, initialised but not listening. */
export async function createSchedulerApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create(SchedulerModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  configureHttpApp(app, config);
  await app.init();
  return app;
}
