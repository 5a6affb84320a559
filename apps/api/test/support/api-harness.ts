import { INestApplication } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { createTestEnvironment, MailCapture, TestEnvironment } from '@solar/testing';
import { ApiModule } from '../../src/api.module';
import { API_APP_OPTIONS, apiHttpAdapter, configureApiApp, createApiApp } from '../../src/create-api-app';

export type Http = ReturnType<typeof request>;

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

let counter = 0;
export function uniqueEmail(label = 'user'): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}

export const PASSWORD = 'Sunny-Day-42';

/** The `name=value` pair of the session cookie a response set, ready for a `Cookie` header. */
export function sessionCookie(response: request.Response): string {
  const header = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const cookie = header.find((value) => value.startsWith('solar.sid='));
  if (!cookie) throw new Error('response set no session cookie');
  return cookie.split(';')[0];
}

/** Registers, verifies through the mailed code and logs in; returns the session cookie. */
export async function signUp(
  http: Http,
  mail: MailCapture,
  email = uniqueEmail(),
  password = PASSWORD,
): Promise<{ email: string; cookie: string; id: string }> {
  await http.post('/api/auth/register').send({ email, password }).expect(200);
  const code = await mail.latestCode(email);
  await http.post('/api/auth/verify-email').send({ email, code }).expect(200);
  const login = await http.post('/api/auth/login').send({ email, password }).expect(200);
  return { email, cookie: sessionCookie(login), id: login.body.user.id };
}

export async function logIn(http: Http, email: string, password = PASSWORD): Promise<string> {
  const login = await http.post('/api/auth/login').send({ email, password }).expect(200);
  return sessionCookie(login);
}

/** Registers a webhook source for the owner of `cookie`; `body` adds to or overrides its fields. */
export async function createWebhookSource(
  http: Http,
  cookie: string,
  body: object = {},
): Promise<{ id: string; secret: string }> {
  const created = await http
    .post('/api/sunsources')
    .set('Cookie', cookie)
    .send({ name: 'Webhook', connectionType: 'Webhook', ...body })
    .expect(201);
  return { id: created.body.id, secret: created.body.connectionDetails.webhookSecret };
}

/** A test file's api: its environment, the app, a direct database connection and one signed-up user. */
export interface ApiWithUser {
  env: TestEnvironment;
  app: INestApplication;
  http: Http;
  db: Client;
  cookie: string;
  /** Closes the database connection, the app and the environment. */
  close(): Promise<void>;
}

/** `env` adds to the test environment's settings (a low limit); `clock` replaces the api's clock. */
export async function startApiWithUser(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<ApiWithUser> {
  const env = await createTestEnvironment(options.env);
  const db = new Client({ connectionString: env.config.databaseUrl });
  const { app, http } = await startApi(env.config, options.clock).catch(async (error: unknown) => {
    await env.teardown();
    throw error;
  });
  const close = async () => {
    await db.end().catch(() => undefined);
    await app.close();
    await env.teardown();
  };
  try {
    await db.connect();
    const { cookie } = await signUp(http, env.mail);
    return { env, app, http, db, cookie, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Makes the app listen on a free loopback port too, for another app (the ingestor) to call; its port. */
export async function listenOnLoopback(app: INestApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as AddressInfo).port;
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
