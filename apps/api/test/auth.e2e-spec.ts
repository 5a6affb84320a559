import { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import { SESSION_RENEWAL_INTERVAL_MS, sessionChangedChannel } from '@solar/auth';
import { REDIS } from '@solar/redis';
import {
  createTestEnvironment,
  FakeClock,
  Http,
  lastReadUntil,
  logIn,
  PASSWORD,
  sessionCookie,
  signUp,
  TEST_REDIS_URL,
  TestEnvironment,
  uniqueEmail,
  waitFor,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const MINUTE = 60_000;
const LOCKED = { success: false, message: 'Account locked. Try again later.', user: null };
const INVALID_CODE = { success: false, message: 'Invalid or expired code', user: null };
const INVALID_CREDENTIALS = { success: false, message: 'Invalid email or password', user: null };

describe('accounts and sessions', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  const clock = new FakeClock(new Date('2026-06-01T10:00:00Z'));

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http } = await startApi(env.config, clock));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  function register(email: string, password = PASSWORD) {
    return http.post('/api/auth/register').send({ email, password, firstName: 'Ada', lastName: 'Lovelace' });
  }

  describe('register', () => {
    it('answers an AuthResponse without user and mails a 6-digit code', async () => {
      const email = uniqueEmail();
      const response = await register(email).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Registration successful. Check your e-mail for the verification code.',
        user: null,
      });
      expect(await env.mail.latestCode(email)).toMatch(/^\d{6}$/);
    });

    it.each([
      ['not an e-mail', { email: 'nobody', password: PASSWORD }, 'email'],
      ['7 characters', { email: uniqueEmail(), password: 'Abcdef1' }, 'password'],
      ['no uppercase', { email: uniqueEmail(), password: 'abcdefg1' }, 'password'],
      ['no lowercase', { email: uniqueEmail(), password: 'ABCDEFG1' }, 'password'],
      ['no digit', { email: uniqueEmail(), password: 'Abcdefgh' }, 'password'],
      ['no password', { email: uniqueEmail() }, 'password'],
      ['password not a string', { email: uniqueEmail(), password: 12345678 }, 'password'],
      ['firstName not a string', { email: uniqueEmail(), password: PASSWORD, firstName: 7 }, 'firstName'],
    ])('rejects %s with a validation error body', async (_case, body, field) => {
      const response = await http.post('/api/auth/register').send(body).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    });

    it('accepts a password of exactly 8 characters with all three classes', async () => {
      await register(uniqueEmail(), 'Abcdefg1').expect(200);
    });

    it('rejects unknown properties', async () => {
      const response = await http
        .post('/api/auth/register')
        .send({ email: uniqueEmail(), password: PASSWORD, isAdmin: true })
        .expect(400);
      expect(response.body.errors.isAdmin).toEqual(['property isAdmin should not exist']);
    });

    it('rejects an e-mail already registered, whatever its case', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const response = await register(email.toUpperCase()).expect(400);
      expect(response.body).toEqual({ success: false, message: 'Email already registered', user: null });
    });
  });

  describe('verify-email', () => {
    it('verifies with the mailed code and returns the user', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const code = await env.mail.latestCode(email);
      const response = await http.post('/api/auth/verify-email').send({ email, code }).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Email verified',
        user: { id: expect.any(String), email, firstName: 'Ada', lastName: 'Lovelace', roles: ['User'] },
      });
      const again = await http.post('/api/auth/verify-email').send({ email, code }).expect(400);
      expect(again.body).toEqual({ success: false, message: 'Email already verified', user: null });
    });

    it('rejects a wrong code and an unknown e-mail alike', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const code = await env.mail.latestCode(email);
      const wrong = code === '000000' ? '000001' : '000000';
      expect(
        (await http.post('/api/auth/verify-email').send({ email, code: wrong }).expect(400)).body,
      ).toEqual(INVALID_CODE);
      const unknown = await http
        .post('/api/auth/verify-email')
        .send({ email: uniqueEmail(), code })
        .expect(400);
      expect(unknown.body).toEqual(INVALID_CODE);
    });

    it('rejects a code that is not 6 digits as a validation error', async () => {
      const response = await http
        .post('/api/auth/verify-email')
        .send({ email: uniqueEmail(), code: '12345' })
        .expect(400);
      expect(response.body.errors.code).toEqual(['code must be 6 digits']);
    });

    it('accepts the code until VERIFICATION_CODE_TTL_MINUTES and not after', async () => {
      const early = uniqueEmail();
      const late = uniqueEmail();
      await register(early).expect(200);
      await register(late).expect(200);
      const earlyCode = await env.mail.latestCode(early);
      const lateCode = await env.mail.latestCode(late);

      clock.advance(15 * MINUTE - 1000);
      await http.post('/api/auth/verify-email').send({ email: early, code: earlyCode }).expect(200);
      clock.advance(2000);
      const expired = await http
        .post('/api/auth/verify-email')
        .send({ email: late, code: lateCode })
        .expect(400);
      expect(expired.body).toEqual(INVALID_CODE);
    });

    it('locks the account for 5 minutes after 5 failed codes, for verify and login', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const code = await env.mail.latestCode(email);
      const wrong = code === '999999' ? '999998' : '999999';
      for (let attempt = 1; attempt <= 5; attempt++) {
        const response = await http.post('/api/auth/verify-email').send({ email, code: wrong }).expect(400);
        expect(response.body).toEqual(INVALID_CODE);
      }
      expect((await http.post('/api/auth/verify-email').send({ email, code }).expect(400)).body).toEqual(
        LOCKED,
      );
      expect(
        (await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(400)).body,
      ).toEqual(LOCKED);

      clock.advance(5 * MINUTE - 1000);
      expect((await http.post('/api/auth/verify-email').send({ email, code }).expect(400)).body).toEqual(
        LOCKED,
      );
      clock.advance(1000);
      await http.post('/api/auth/verify-email').send({ email, code }).expect(200);
    });

    it('does not lock after 4 failures', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const code = await env.mail.latestCode(email);
      const wrong = code === '123456' ? '654321' : '123456';
      for (let attempt = 1; attempt <= 4; attempt++) {
        await http.post('/api/auth/verify-email').send({ email, code: wrong }).expect(400);
      }
      await http.post('/api/auth/verify-email').send({ email, code }).expect(200);
    });
  });

  describe('resend-code', () => {
    it('answers 400 for an unknown e-mail and for a verified one', async () => {
      const unknown = await http.post('/api/auth/resend-code').send({ email: uniqueEmail() }).expect(400);
      expect(unknown.body).toEqual({ success: false, message: 'Email not found', user: null });
      const { email } = await signUp(http, env.mail);
      const verified = await http.post('/api/auth/resend-code').send({ email }).expect(400);
      expect(verified.body).toEqual({ success: false, message: 'Email already verified', user: null });
    });

    it('sends a new code at most once a minute and five times an hour; the new code replaces the old', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const first = await env.mail.latestCode(email);

      const tooSoon = await http.post('/api/auth/resend-code').send({ email }).expect(400);
      expect(tooSoon.body).toEqual({
        success: false,
        message: 'Too many codes requested. Try again later.',
        user: null,
      });
      clock.advance(59_000);
      await http.post('/api/auth/resend-code').send({ email }).expect(400);

      // Registration sent the first of five; four resends a minute apart fill the hour.
      for (let resend = 1; resend <= 4; resend++) {
        clock.advance(61_000);
        const response = await http.post('/api/auth/resend-code').send({ email }).expect(200);
        expect(response.body).toEqual({
          success: true,
          message: 'A new verification code has been sent',
          user: null,
        });
      }
      expect(env.mail.messagesTo(email)).toHaveLength(5);
      clock.advance(61_000);
      await http.post('/api/auth/resend-code').send({ email }).expect(400);
      expect(env.mail.messagesTo(email)).toHaveLength(5);

      clock.advance(60 * MINUTE);
      await http.post('/api/auth/resend-code').send({ email }).expect(200);
      const latest = await env.mail.latestCode(email);
      if (latest !== first) {
        await http.post('/api/auth/verify-email').send({ email, code: first }).expect(400);
      }
      await http.post('/api/auth/verify-email').send({ email, code: latest }).expect(200);
    });
  });

  describe('login', () => {
    it('refuses an unverified account with "Email not verified"', async () => {
      const email = uniqueEmail();
      await register(email).expect(200);
      const response = await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(400);
      expect(response.body).toEqual({ success: false, message: 'Email not verified', user: null });
    });

    it('answers a wrong password and an unknown e-mail with the same body', async () => {
      const { email } = await signUp(http, env.mail);
      const wrongPassword = await http
        .post('/api/auth/login')
        .send({ email, password: 'Wrong-Pass-1' })
        .expect(400);
      const unknownEmail = await http
        .post('/api/auth/login')
        .send({ email: uniqueEmail(), password: PASSWORD })
        .expect(400);
      expect(wrongPassword.body).toEqual(INVALID_CREDENTIALS);
      expect(unknownEmail.body).toEqual(INVALID_CREDENTIALS);
    });

    it('takes about as long for an unknown e-mail as for a wrong password', async () => {
      const { email } = await signUp(http, env.mail);
      const time = async (body: object) => {
        const started = process.hrtime.bigint();
        await http.post('/api/auth/login').send(body).expect(400);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const wrong: number[] = [];
      const unknown: number[] = [];
      for (let round = 0; round < 3; round++) {
        wrong.push(await time({ email, password: `Wrong-Pass-${round}` }));
        unknown.push(await time({ email: uniqueEmail(), password: PASSWORD }));
      }
      // The fastest of each: a busy machine only ever slows a request down, so the fastest is
      // the nearest to what the path itself costs (a skipped hash would cost a few ms).
      expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.5);
    });

    it('locks the account after 5 wrong passwords', async () => {
      const { email } = await signUp(http, env.mail);
      for (let attempt = 1; attempt <= 5; attempt++) {
        await http.post('/api/auth/login').send({ email, password: 'Wrong-Pass-1' }).expect(400);
      }
      expect(
        (await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(400)).body,
      ).toEqual(LOCKED);
      clock.advance(5 * MINUTE);
      await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
    });

    it('sets an HttpOnly, SameSite=Lax browser-session cookie without rememberMe', async () => {
      const { email } = await signUp(http, env.mail);
      const response = await http.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Login successful',
        user: expect.objectContaining({ email }),
      });
      const cookie = ([] as string[])
        .concat(response.headers['set-cookie'])
        .find((c) => c.startsWith('solar.sid='))!;
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Lax/);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/Expires=|Max-Age=/);
      expect(cookie).not.toMatch(/; Secure/);
    });

    it('makes the cookie persistent for 7 days with rememberMe', async () => {
      const { email } = await signUp(http, env.mail);
      const before = Date.now();
      const response = await http
        .post('/api/auth/login')
        .send({ email, password: PASSWORD, rememberMe: true })
        .expect(200);
      const cookie = ([] as string[])
        .concat(response.headers['set-cookie'])
        .find((c) => c.startsWith('solar.sid='))!;
      const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]);
      const sevenDays = 7 * 24 * 60 * MINUTE;
      expect(expires).toBeGreaterThanOrEqual(before + sevenDays - 2000);
      expect(expires).toBeLessThanOrEqual(Date.now() + sevenDays + 1000);
    });

    it('issues a new session id at every login and retires the one presented', async () => {
      const { email, cookie: first } = await signUp(http, env.mail);
      const second = await http
        .post('/api/auth/login')
        .set('Cookie', first)
        .send({ email, password: PASSWORD })
        .expect(200);
      const secondCookie = sessionCookie(second);
      expect(secondCookie).not.toEqual(first);
      await http.get('/api/auth/me').set('Cookie', first).expect(401);
      await http.get('/api/auth/me').set('Cookie', secondCookie).expect(200);
    });

    it('keeps the session in Redis for 7 days, renewed on use at most once a minute', async () => {
      const { cookie } = await signUp(http, env.mail);
      const sid = decodeURIComponent(cookie.split('=')[1]).slice(2).split('.')[0];
      const redis = new Redis(TEST_REDIS_URL, { keyPrefix: env.config.redisKeyPrefix });
      const expectRenewed = async () => {
        const ttl = await redis.ttl(`session:${sid}`);
        expect(ttl).toBeGreaterThan(7 * 24 * 3600 - 60);
        expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600);
      };
      try {
        await redis.expire(`session:${sid}`, 600);
        await http.get('/api/auth/me').set('Cookie', cookie).expect(200);
        await expectRenewed();

        await redis.expire(`session:${sid}`, 600);
        clock.advance(SESSION_RENEWAL_INTERVAL_MS - 1);
        await http.get('/api/auth/me').set('Cookie', cookie).expect(200);
        expect(await redis.ttl(`session:${sid}`)).toBeLessThanOrEqual(600);

        clock.advance(1);
        await http.get('/api/auth/me').set('Cookie', cookie).expect(200);
        await expectRenewed();
      } finally {
        redis.disconnect();
      }
    });
  });

  describe('me and logout', () => {
    it('answers 401 without a session, and with a forged cookie', async () => {
      expect((await http.get('/api/auth/me').expect(401)).body).toEqual({
        message: 'Authentication required',
      });
      await http.get('/api/auth/me').set('Cookie', 'solar.sid=s%3Aforged.signature').expect(401);
      await http.post('/api/auth/logout').expect(401);
    });

    it('returns the caller with message null', async () => {
      const { email, cookie, id } = await signUp(http, env.mail);
      const response = await http.get('/api/auth/me').set('Cookie', cookie).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: null,
        user: { id, email, firstName: null, lastName: null, roles: ['User'] },
      });
    });

    it('logs out: clears the cookie and ends the session on the server', async () => {
      const { cookie } = await signUp(http, env.mail);
      const response = await http.post('/api/auth/logout').set('Cookie', cookie).expect(200);
      expect(response.body).toEqual({ success: true, message: 'Logged out', user: null });
      const cleared = ([] as string[])
        .concat(response.headers['set-cookie'])
        .find((c) => c.startsWith('solar.sid='))!;
      expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
      await http.get('/api/auth/me').set('Cookie', cookie).expect(401);
    });
  });

  it('keeps sessions across an api restart (they live in Redis)', async () => {
    const { cookie } = await signUp(http, env.mail);
    const restarted = await startApi(env.configWith({}), clock);
    try {
      await app.close();
      await restarted.http.get('/api/auth/me').set('Cookie', cookie).expect(200);
    } finally {
      app = restarted.app;
      http = restarted.http;
    }
  });

  it('sets the Secure attribute when COOKIE_SECURE is on and a trusted proxy says HTTPS', async () => {
    const secure = await startApi(env.configWith({ COOKIE_SECURE: 'true' }), clock);
    try {
      const { email } = await signUp(http, env.mail);
      const response = await secure.http
        .post('/api/auth/login')
        .set('X-Forwarded-Proto', 'https')
        .send({ email, password: PASSWORD })
        .expect(200);
      expect(sessionCookie(response)).toMatch(/^solar\.sid=/);
      const cookie = ([] as string[])
        .concat(response.headers['set-cookie'])
        .find((c) => c.startsWith('solar.sid='))!;
      expect(cookie).toMatch(/; Secure/);
      const login = await logIn(secure.http, email).catch((error: Error) => error.message);
      expect(login).toMatch(/no session cookie/);
    } finally {
      await secure.app.close();
    }
  });
  describe('sessions held by a second api process', () => {
    /** How many processes hear that sessions changed (SessionCache's channel). */
    async function sessionListeners(): Promise<number> {
      const [, count] = await app.get<Redis>(REDIS).pubsub('NUMSUB', sessionChangedChannel(env.config));
      return Number(count);
    }

    /**
     * Another api on the same database and Redis, which has read `cookie`'s session (and so
     * holds it in memory from here on, for 30 s unless told of a change).
     */
    async function withSecondProcess(cookie: string, run: (me: () => Promise<number>) => Promise<void>) {
      const listeners = await sessionListeners();
      const second = await startApi(env.configWith({}), clock);
      try {
        const me = async () => (await second.http.get('/api/auth/me').set('Cookie', cookie)).status;
        await waitFor(
          async () => (await me()) === 200 && (await sessionListeners()) > listeners,
          'the second process to subscribe',
          2000,
        );
        expect(await me()).toBe(200);
        await run(me);
      } finally {
        await second.app.close();
      }
    }

    it('refuses a session logged out through the first process on its next request', async () => {
      const { cookie } = await signUp(http, env.mail);
      await withSecondProcess(cookie, async (me) => {
        await http.post('/api/auth/logout').set('Cookie', cookie).expect(200);
        // The notice crosses Redis: a moment, far below the cache's 30 s.
        expect(await lastReadUntil(me, (status) => status === 401)).toBe(401);
      });
    });

    it('refuses a session id retired by a login through the first process', async () => {
      const { email, cookie } = await signUp(http, env.mail);
      await withSecondProcess(cookie, async (me) => {
        const login = await http
          .post('/api/auth/login')
          .set('Cookie', cookie)
          .send({ email, password: PASSWORD })
          .expect(200);
        expect(await lastReadUntil(me, (status) => status === 401)).toBe(401);
        await http.get('/api/auth/me').set('Cookie', sessionCookie(login)).expect(200);
      });
    });
  });
});
