import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { NUMERIC_FIELDS, TEXT_FIELDS, CODE_FIELDS, TIMESTAMP_ALIASES } from '@solar/telemetry';
import { createTestEnvironment, Http, seededRandom, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

const SEED = 20261122;
const DOCUMENTS = 1000;

const NAMES = [
  ...NUMERIC_FIELDS.flatMap((field) => [field.name, ...field.aliases]),
  ...TEXT_FIELDS.flatMap((field) => [field.name, ...field.aliases]),
  ...CODE_FIELDS.flatMap((field) => [field.name, ...field.aliases]),
  ...TIMESTAMP_ALIASES,
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'key',
  'x',
  '',
  'ünïcødé',
];

function randomDocument(random: () => number, secret: string): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const value = (depth: number): unknown => {
    switch (Math.floor(random() * 12)) {
      case 0:
        return random() * 2e5 - 1e5;
      case 1:
        return pick([0, -0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, 100, 101, -1]);
      case 2:
        return String(Math.round(random() * 1000) / 10);
      case 3:
        return pick([
          '',
          ' ',
          'NaN',
          'Infinity',
          '1,5',
          '0x10',
          '1e400',
          'null',
          'true',
          '\u0000',
          '\ud800',
          'é€😀',
        ]);
      case 4:
        return 'x'.repeat(Math.floor(random() * 20_000));
      case 5:
        return random() < 0.5;
      case 6:
        return null;
      case 7:
        return depth < 5 ? Array.from({ length: Math.floor(random() * 5) }, () => value(depth + 1)) : [];
      case 8:
        return depth < 5 ? object(depth + 1) : {};
      case 9:
        return new Date(Date.now() - random() * 4e10 + 1e9).toISOString();
      case 10:
        return Math.floor(Date.now() / 1000 - random() * 1e8);
      default:
        return pick(['Battery', 'Grid', 'F01,F02', 'W1']);
    }
  };
  const object = (depth: number): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    const size = Math.floor(random() * 12);
    for (let index = 0; index < size; index++) result[pick(NAMES)] = value(depth);
    return result;
  };
  const document: unknown = random() < 0.1 ? value(0) : object(0);
  if (document && typeof document === 'object' && !Array.isArray(document) && random() < 0.7) {
    (document as Record<string, unknown>).key = secret;
  }
  return document;
}

describe('webhook against random documents', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  it(`answers ${DOCUMENTS} random documents (seed ${SEED}) with 200, 400, 409 or 413, never 5xx`, async () => {
    const { cookie } = await signUp(http, env.mail);
    const sources = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const created = await http
          .post('/api/sunsources')
          .set('Cookie', cookie)
          .send({ name: 'Fuzz', connectionType: 'Webhook' })
          .expect(201);
        return {
          id: created.body.id as string,
          secret: created.body.connectionDetails.webhookSecret as string,
        };
      }),
    );
    const random = seededRandom(SEED);
    const statuses = new Map<number, number>();
    let stored = 0;
    for (let batch = 0; batch < DOCUMENTS / 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => {
          const source = sources[Math.floor(random() * sources.length)];
          const body = JSON.stringify(randomDocument(random, source.secret)) ?? 'null';
          return http
            .post(`/api/webhook/sunsource/${source.id}`)
            .set('Content-Type', 'application/json')
            .send(body);
        }),
      );
      for (const response of responses) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect([200, 400, 409, 413]).toContain(response.status);
        expect(typeof response.body.message).toBe('string');
        if (response.body.stored === true) stored += 1;
      }
    }
    // The documents exercised the whole path, not just the front door.
    expect(statuses.get(200)).toBeGreaterThan(50);
    expect(statuses.get(400)).toBeGreaterThan(50);

    const db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM telemetry');
      expect(rows[0].n).toBe(stored);
    } finally {
      await db.end();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);
});
