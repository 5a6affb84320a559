import { INestApplication } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import request from 'supertest';
import { AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { Http } from '@solar/testing';
import { ApiModule } from '../../src/api.module';
import { API_APP_OPTIONS, apiHttpAdapter, configureApiApp, createApiApp } from '../../src/create-api-app';

/**
 * The real api app, initialised in this process (supertest drives its HTTP server).
 * `override` replaces providers (`builder.overrideProvider(...)`); the app is set up as always.
 */
export async function startApi(
  config: AppConfig,
  clock?: Clock,
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder,
): Promise<{ app: INestApplication; http: Http }> {
  const app = override
    ? await configureApiApp(
        (
          await override(
            Test.createTestingModule({ imports: [ApiModule.forRoot(config, { clock })] }),
          ).compile()
        ).createNestApplication(apiHttpAdapter(), API_APP_OPTIONS),
        config,
      )
    : await createApiApp(config, { clock });
  return { app, http: request(app.getHttpServer()) };
}

/** A browser's request carries an Origin: it goes through Express to the controller. */
export const BROWSER_ORIGIN = 'https://elsewhere.example';

/**
 * Posts `reading` to the webhook of `source` with its key in the body, as a device does (answered
 * ahead of Express) or, `via` 'controller', as a browser does.
 */
export function postTelemetry(
  http: Http,
  source: { id: string; secret: string },
  reading: object,
  via: 'device' | 'controller' = 'device',
): request.Test {
  const test = http.post(`/api/webhook/sunsource/${source.id}`);
  return (via === 'controller' ? test.set('Origin', BROWSER_ORIGIN) : test).send({
    key: source.secret,
    ...reading,
  });
}
