import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import {
  createTestEnvironment,
  FakeOpenMeteo,
  Http,
  PASSWORD,
  sessionCookie,
  TestEnvironment,
  uniqueEmail,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const PER_ADDRESS = 3;
const PER_EMAIL = 5;
const PER_USER = 3;
const WINDOW_SECONDS = 60;
const SHORT_WINDOW_SECONDS = 6;
const TOO_MANY = { message: 'Too many requests. Try again later.' };
const NOT_FOUND = { message: 'Sun source not found' };
const NEEDS_COORDINATES = { message: 'Source needs latitude and longitude' };
const INVALID_CREDENTIALS = { success: false, message: 'Invalid email or password', user: null };

type AuthRoute = 'register' | 'login' | 'verify-email' | 'resend-code';

let addresses = 0;
/** A client address of its own (TEST-NET-3, never contacted: only a header the api trusts from loopback). */
function newAddress(): string {
  addresses += 1;
  return `203.0.113.${addresses}`;
}

/** The answer of one auth route that is not rate limited, for an e-mail no account has. */
const ANSWER_FOR_UNKNOWN_EMAIL: Record<AuthRoute, { status: number; body: object }> = {
  register: {
    status: 200,
    body: {
      success: true,
      message: 'Registration successful. Check your e-mail for the verification code.',
      user: null,
    },
  },
  login: { status: 400, body: INVALID_CREDENTIALS },
  'verify-email': { status: 400, body: { success: false, message: 'Invalid or expired code', user: null } },
  'resend-code': { status: 400, body: { success: false, message: 'Email not found', user: null } },
};

function bodyFor(route: AuthRoute, email: string): object {
  switch (route) {
    case 'register':
    case 'login':
      return { email, password: PASSWORD };
    case 'verify-email':
      return { email, code: '123456' };
    case 'resend-code':
      return { email };
  }
}

/**
 * A 429 as every rate limit answers it: Retry-After is the whole seconds left of a window that
 * began after `since` (a time taken before the window's first request).
 */
function expectTooMany(response: request.Response, since: number, windowSeconds = WINDOW_SECONDS): void {
  expect([response.status, response.body]).toEqual([429, TOO_MANY]);
  const retryAfter = response.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  const elapsedSeconds = (Date.now() - since) / 1000;
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(Math.max(1, windowSeconds - elapsedSeconds));
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
}

describe('rate limits on the auth routes and the costly routes', () => {
  let weather: FakeOpenMeteo;
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;

  beforeAll(async () => {
    weather = await new FakeOpenMeteo().start();
    env = await createTestEnvironment({
      AUTH_RATE_LIMIT_PER_ADDRESS: String(PER_ADDRESS),
      AUTH_RATE_LIMIT_PER_EMAIL: String(PER_EMAIL),
      AUTH_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      COSTLY_RATE_LIMIT_PER_USER: String(PER_USER),
      COSTLY_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      WEATHER_API_URL: weather.url,
    });
    ({ app, http } = await startApi(env.config));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await app.close();
    await db.end();
    await weather.stop();
    await env.teardown();
  });

  function auth(route: AuthRoute, address: string, body: object, on: Http = http) {
    return on.post(`/api/auth/${route}`).set('X-Forwarded-For', address).send(body);
  }

  /** Registers, verifies and logs in, from an address of its own (three requests of the limit). */
  async function signUp(email = uniqueEmail()): Promise<{ email: string; cookie: string }> {
    const address = newAddress();
    await auth('register', address, { email, password: PASSWORD }).expect(200);
    const code = await env.mail.latestCode(email);
    await auth('verify-email', address, { email, code }).expect(200);
    const login = await auth('login', address, { email, password: PASSWORD }).expect(200);
    return { email, cookie: sessionCookie(login) };
  }

  /** Uses up an address's allowance with cheap requests (no hash) for e-mails of no account. */
  async function exhaust(address: string): Promise<void> {
    for (let i = 0; i < PER_ADDRESS; i += 1) {
      await auth('resend-code', address, bodyFor('resend-code', uniqueEmail('filler'))).expect(400);
    }
  }

  describe('per client address', () => {
    it.each<AuthRoute>(['register', 'login', 'verify-email', 'resend-code'])(
      '%s: the N-th request of an address passes, the next is 429 with Retry-After',
      async (route) => {
        const address = newAddress();
        const expected = ANSWER_FOR_UNKNOWN_EMAIL[route];
        const since = Date.now();
        for (let i = 1; i <= PER_ADDRESS; i += 1) {
          const response = await auth(route, address, bodyFor(route, uniqueEmail(route)));
          expect([i, response.status, response.body]).toEqual([i, expected.status, expected.body]);
        }
        expectTooMany(await auth(route, address, bodyFor(route, uniqueEmail(route))), since);
        // Another address is not affected.
        const other = await auth(route, newAddress(), bodyFor(route, uniqueEmail(route)));
        expect([other.status, other.body]).toEqual([expected.status, expected.body]);
      },
    );

    it('counts the four routes together', async () => {
      const address = newAddress();
      const since = Date.now();
      await auth('register', address, bodyFor('register', uniqueEmail())).expect(200);
      await auth('login', address, bodyFor('login', uniqueEmail())).expect(400);
      await auth('verify-email', address, bodyFor('verify-email', uniqueEmail())).expect(400);
      expectTooMany(await auth('resend-code', address, bodyFor('resend-code', uniqueEmail())), since);
    });

    it('counts a request whose body is invalid too (it is refused before validation runs)', async () => {
      const address = newAddress();
      const since = Date.now();
      for (let i = 0; i < PER_ADDRESS; i += 1) {
        await auth('login', address, { email: 42 }).expect(400);
      }
      expectTooMany(await auth('login', address, { email: 42 }), since);
    });
  });

  describe('per e-mail', () => {
    it.each<AuthRoute>(['register', 'login', 'verify-email', 'resend-code'])(
      '%s: the N-th request for an e-mail passes from any address, the next is 429',
      async (route) => {
        const email = uniqueEmail(route);
        const expected = ANSWER_FOR_UNKNOWN_EMAIL[route];
        const since = Date.now();
        for (let i = 1; i <= PER_EMAIL; i += 1) {
          // Case and spaces aside, the same e-mail (and the same account once registered).
          const response = await auth(
            route,
            newAddress(),
            bodyFor(route, i % 2 ? email : ` ${email.toUpperCase()} `),
          );
          // A second registration of one e-mail is refused as taken, and counted all the same.
          const status = route === 'register' && i > 1 ? 400 : expected.status;
          expect([i, response.status]).toEqual([i, status]);
        }
        expectTooMany(await auth(route, newAddress(), bodyFor(route, email.toUpperCase())), since);
        // Another e-mail from a fresh address is not affected.
        const other = await auth(route, newAddress(), bodyFor(route, uniqueEmail(route)));
        expect([other.status, other.body]).toEqual([expected.status, expected.body]);
      },
    );
  });

  describe('a refused request does no work', () => {
    it('login: the right password gets 429 and no session; wrong ones are not counted toward the lockout', async () => {
      const victim = await signUp();
      const address = newAddress();
      const since = Date.now();
      await exhaust(address);

      const refused = await auth('login', address, { email: victim.email, password: PASSWORD });
      expectTooMany(refused, since);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // More wrong passwords than the lockout allows (5): none is compared, none recorded.
      for (let i = 0; i < 6; i += 1) {
        expectTooMany(await auth('login', address, { email: victim.email, password: 'Wrong-Pass-1' }), since);
      }
      const { rows } = await db.query('SELECT failed_attempts FROM users WHERE email = $1', [victim.email]);
      expect(rows).toEqual([{ failed_attempts: 0 }]);
      // Not locked: the right password from another address logs in.
      const login = await auth('login', newAddress(), { email: victim.email, password: PASSWORD }).expect(
        200,
      );
      expect(sessionCookie(login)).toMatch(/^solar\.sid=/);
    });

    it('register: a refused registration stores no account and sends no mail', async () => {
      const address = newAddress();
      const since = Date.now();
      await exhaust(address);
      const email = uniqueEmail('refused');
      expectTooMany(await auth('register', address, { email, password: PASSWORD }), since);
      const { rows } = await db.query('SELECT id FROM users WHERE email = $1', [email]);
      expect(rows).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(env.mail.messagesTo(email)).toEqual([]);
    });

    it('resend-code and verify-email: no mail is sent and a right code verifies nothing', async () => {
      const email = uniqueEmail('unverified');
      await auth('register', newAddress(), { email, password: PASSWORD }).expect(200);
      const code = await env.mail.latestCode(email);
      const address = newAddress();
      const since = Date.now();
      await exhaust(address);

      expectTooMany(await auth('resend-code', address, { email }), since);
      expectTooMany(await auth('verify-email', address, { email, code }), since);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(env.mail.messagesTo(email)).toHaveLength(1);
      const { rows } = await db.query('SELECT email_verified FROM users WHERE email = $1', [email]);
      expect(rows).toEqual([{ email_verified: false }]);
    });
  });

  it('two api instances on the same Redis share the counts', async () => {
    const second = await startApi(env.configWith({}));
    try {
      const address = newAddress();
      const on = (instance: Http) =>
        auth('verify-email', address, bodyFor('verify-email', uniqueEmail()), instance);
      const since = Date.now();
      await on(http).expect(400);
      await on(second.http).expect(400);
      await on(http).expect(400);
      expectTooMany(await on(second.http), since);
      expectTooMany(await on(http), since);
    } finally {
      await second.app.close();
    }
  });

  it('a window ends when Retry-After says, however many refused requests came meanwhile', async () => {
    // A short window, on an instance of its own (the same Redis: its keys are this test's alone).
    const short = await startApi(
      env.configWith({ AUTH_RATE_LIMIT_WINDOW_SECONDS: String(SHORT_WINDOW_SECONDS) }),
    );
    try {
      const email = uniqueEmail('victim');
      const attempt = () => auth('verify-email', newAddress(), bodyFor('verify-email', email), short.http);
      const since = Date.now();
      for (let i = 0; i < PER_EMAIL; i += 1) await attempt().expect(400);
      const first = await attempt();
      expectTooMany(first, since, SHORT_WINDOW_SECONDS);
      // Past this instant the window may have ended (it began after `since`); this much later
      // it has (Retry-After rounds up).
      const retryAt = Date.now() + Number(first.headers['retry-after']) * 1000;
      // An attacker keeps asking for the victim's e-mail: refused requests do not extend the window.
      let refused = 0;
      while (Date.now() < since + (SHORT_WINDOW_SECONDS - 1.5) * 1000) {
        expectTooMany(await attempt(), since, SHORT_WINDOW_SECONDS);
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(refused).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, retryAt - Date.now())));
      const after = await attempt();
      expect([after.status, after.body]).toEqual([400, ANSWER_FOR_UNKNOWN_EMAIL['verify-email'].body]);
    } finally {
      await short.app.close();
    }
  });

  describe('costly routes, per user and route', () => {
    let owner: { cookie: string };
    let other: { cookie: string };

    beforeAll(async () => {
      owner = await signUp();
      other = await signUp();
    });

    async function createSource(cookie: string, fields: object): Promise<string> {
      const created = await http
        .post('/api/sunsources')
        .set('Cookie', cookie)
        .send({ name: 'Roof', connectionType: 'Webhook', ...fields })
        .expect(201);
      return created.body.id;
    }

    it('weather refresh: N refreshes fetch, the next is 429 and fetches nothing; another user is not affected', async () => {
      const latitude = 48.137;
      const id = await createSource(owner.cookie, { latitude, longitude: 11.575 });
      const since = Date.now();
      for (let i = 1; i <= PER_USER; i += 1) {
        await http.post(`/api/weather/${id}/refresh`).set('Cookie', owner.cookie).expect(200);
      }
      expect(weather.requestsFor(latitude)).toHaveLength(PER_USER);
      expectTooMany(await http.post(`/api/weather/${id}/refresh`).set('Cookie', owner.cookie), since);
      expect(weather.requestsFor(latitude)).toHaveLength(PER_USER);

      const theirs = await http.post(`/api/weather/${id}/refresh`).set('Cookie', other.cookie);
      expect([theirs.status, theirs.body]).toEqual([404, NOT_FOUND]);
    });

    it('count and size: each route has its own count', async () => {
      const id = await createSource(owner.cookie, {});
      const since = Date.now();
      for (let i = 1; i <= PER_USER; i += 1) {
        const response = await http.get(`/api/sunsourcedata/count/${id}`).set('Cookie', owner.cookie);
        expect([i, response.status, response.body]).toEqual([i, 200, { count: 0 }]);
      }
      expectTooMany(await http.get(`/api/sunsourcedata/count/${id}`).set('Cookie', owner.cookie), since);
      // Size is another route: still open.
      const size = await http.get(`/api/sunsourcedata/size/${id}`).set('Cookie', owner.cookie);
      expect(size.status).toBe(200);
      // Another user's count is their own.
      const theirs = await http.get(`/api/sunsourcedata/count/${randomUUID()}`).set('Cookie', other.cookie);
      expect([theirs.status, theirs.body]).toEqual([404, NOT_FOUND]);
    });

    it('prediction requests: N pass, the next is 429; another user is not affected', async () => {
      const nowhere = await createSource(owner.cookie, {});
      const predict = (cookie: string, sunSourceId: string) =>
        http.post('/api/predictions/predict').set('Cookie', cookie).send({ sunSourceId });
      const since = Date.now();
      for (let i = 1; i <= PER_USER; i += 1) {
        const response = await predict(owner.cookie, nowhere);
        expect([i, response.status, response.body]).toEqual([i, 400, NEEDS_COORDINATES]);
      }
      expectTooMany(await predict(owner.cookie, nowhere), since);
      const theirs = await predict(other.cookie, nowhere);
      expect([theirs.status, theirs.body]).toEqual([404, NOT_FOUND]);
    });

    it('are documented with 429 and Retry-After in the OpenAPI document', async () => {
      const { body } = await http.get('/api/docs-json').expect(200);
      const limited = [
        ['post', '/api/auth/register'],
        ['post', '/api/auth/login'],
        ['post', '/api/auth/verify-email'],
        ['post', '/api/auth/resend-code'],
        ['post', '/api/weather/{sunSourceId}/refresh'],
        ['get', '/api/sunsourcedata/count/{sunSourceId}'],
        ['get', '/api/sunsourcedata/size/{sunSourceId}'],
        ['get', '/api/sunsourcedata/stats'],
        ['get', '/api/admin/stats'],
        ['post', '/api/predictions/train'],
        ['post', '/api/predictions/predict'],
        ['post', '/api/sunsourcedata/debug/generate/{sunSourceId}'],
        ['post', '/api/sunsourcedata/debug/process/start/{sunSourceId}'],
      ];
      const documented = limited.map(([method, path]) => {
        const response = body.paths[path][method].responses['429'];
        return [method, path, Object.keys(response?.headers ?? {})];
      });
      expect(documented).toEqual(limited.map(([method, path]) => [method, path, ['Retry-After']]));
      // A route without a limit says nothing of one.
      expect(body.paths['/api/auth/me'].get.responses['429']).toBeUndefined();
    });
  });
});
