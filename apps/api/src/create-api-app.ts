import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { createSessionMiddleware, SessionCache } from '@solar/auth';
import { AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { ApiExpressAdapter, configureHttpApp } from '@solar/platform';
import { REDIS } from '@solar/redis';
import { ApiModule, ApiModuleOptions } from './api.module';
import { setupOpenApi } from './openapi';
import { serveUploads } from './upload/serve-uploads';
import { WEBHOOK_DEVICE_PATH, WEBHOOK_PATH, webhookBodyHandlers } from './webhook/webhook-body';
import { answerWebhookDevicesFirst } from './webhook/webhook-device-route';

/**
 * Devices, the broker, health probes and the share pages: never a session, and no work spent
 * looking for one (a share page is cached publicly, so it must never renew a session cookie).
 */
const SESSIONLESS_PATHS = [WEBHOOK_PATH, '/api/internal', '/api/health', '/share'];

/** How the api's Nest application is created, here and by tests that override a provider. */
export const API_APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;

/** The api's HTTP adapter: answers PostgreSQL encoded go out as the bytes they are. */
export const apiHttpAdapter = () => new ApiExpressAdapter();

/** The api app, fully configured but not yet listening: `main.ts` and the e2e tests share it. */
export async function createApiApp(
  config: AppConfig,
  options: ApiModuleOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(ApiModule.forRoot(config, options), apiHttpAdapter(), API_APP_OPTIONS);
  return configureApiApp(app, config);
}

/** Everything the api adds to its Nest application (created with `apiHttpAdapter()` and `API_APP_OPTIONS`), then init. */
export async function configureApiApp(app: INestApplication, config: AppConfig): Promise<INestApplication> {
  configureHttpApp(app, config, {
    rawBodyPaths: [
      /^\/api\/upload\//,
      /^\/api\/webhook\//,
      // A CSV import streams its body to a file (`csvUploadOf`).
      /^\/api\/sunsourcedata\/[^/?]+\/import(?:[/?]|$)/,
    ],
    routinePaths: [WEBHOOK_DEVICE_PATH],
  });
  app.use(WEBHOOK_PATH, ...webhookBodyHandlers());
  serveUploads(app, config);
  const clock = app.get(Clock);
  app.use(
    createSessionMiddleware(config, app.get<Redis>(REDIS), app.get(SessionCache), {
      sessionlessPaths: SESSIONLESS_PATHS,
      now: () => clock.now().getTime(),
    }),
  );
  setupOpenApi(app, config);
  answerWebhookDevicesFirst(app, config);
  await app.init();
  app.flushLogs();
  return app;
}
