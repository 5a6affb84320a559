import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { MailCapture } from './mail-capture';
import { createTestEnvironment, TestEnvironment } from './test-environment';

/*
 * The api over HTTP, for any app's tests: accounts, sessions and sources made through its routes,
 * and the api with one signed-up user. The api's app itself is handed in (`AppFactory`) by a test
 * that may import it: a library never imports an app.
 */

/** A supertest agent on an app's HTTP server. */
export type Http = ReturnType<typeof request>;

/** An app's Nest application, set up and initialised but not listening; `clock` replaces its clock. */
export type AppFactory = (config: AppConfig, options: { clock?: Clock }) => Promise<INestApplication>;

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

/** An MQTT source's connection details, as the api gives them to its owner. */
export interface MqttSource {
  id: string;
  topic: string;
  clientId: string;
  key: string;
}

/** Registers an MQTT source for the owner of `cookie`. */
export async function createMqttSource(
  http: Http,
  cookie: string,
  name = 'MQTT source',
): Promise<MqttSource> {
  const response = await http
    .post('/api/sunsources')
    .set('Cookie', cookie)
    .send({ name, connectionType: 'MQTT' })
    .expect(201);
  const details = response.body.connectionDetails as Record<string, string>;
  return {
    id: response.body.id,
    topic: details.mqttTopic,
    clientId: details.mqttClientId,
    key: details.mqttApiKey,
  };
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

/**
 * The api from `createApi`, the api's own app factory, in a test environment of its own: `env`
 * adds to the environment's settings (a low limit); `clock` replaces the api's clock.
 */
export async function startApiWithUser(
  createApi: AppFactory,
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<ApiWithUser> {
  const env = await createTestEnvironment(options.env);
  const db = new Client({ connectionString: env.config.databaseUrl });
  const app = await createApi(env.config, { clock: options.clock }).catch(async (error: unknown) => {
    await env.teardown();
    throw error;
  });
  const http = request(app.getHttpServer());
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
