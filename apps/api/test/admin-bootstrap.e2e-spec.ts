import { INestApplication } from '@nestjs/common';
import {
  createTestEnvironment,
  Http,
  lastReadUntil,
  logIn,
  PASSWORD,
  signUp,
  TestEnvironment,
  uniqueEmail,
} from '@solar/testing';
import { startApi } from './support/api-harness';

// Each test boots extra api instances and hashes passwords: seconds on a busy machine.
jest.setTimeout(30_000);

const ADMIN_PASSWORD = 'Root-Pass-2026';
const SQUATTER_PASSWORD = 'Squat-Pass-2026';
const ALL_ROLES = ['User', 'Admin', 'Overseer'];
const AUTH_REQUIRED = { message: 'Authentication required' };
const INVALID_CREDENTIALS = { success: false, message: 'Invalid email or password', user: null };

describe('ADMIN_EMAIL / ADMIN_PASSWORD on an address somebody registered first', () => {
  let env: TestEnvironment;
  let first: { app: INestApplication; http: Http };
  const started: INestApplication[] = [];

  beforeAll(async () => {
    env = await createTestEnvironment();
    first = await startApi(env.config);
  });

  afterEach(async () => {
    while (started.length > 0) await started.pop()!.close();
  });

  afterAll(async () => {
    await first.app.close();
    await env.teardown();
  });

  /** Another api on the same database and Redis, booted with `ADMIN_EMAIL` = `email`. */
  async function bootWithAdmin(email: string, password = ADMIN_PASSWORD): Promise<Http> {
    const api = await startApi(env.configWith({ ADMIN_EMAIL: email, ADMIN_PASSWORD: password }));
    started.push(api.app);
    return api.http;
  }

  const me = (http: Http, cookie: string) => http.get('/api/auth/me').set('Cookie', cookie);
  const login = (http: Http, email: string, password: string) =>
    http.post('/api/auth/login').send({ email, password });

  it("takes over a verified squatter's account: its password and sessions end in every process", async () => {
    const squatter = await signUp(first.http, env.mail, uniqueEmail('squatted'), SQUATTER_PASSWORD);
    // The first process now holds the squatter's account in memory.
    expect((await me(first.http, squatter.cookie).expect(200)).body.user.roles).toEqual(['User']);

    const booted = await bootWithAdmin(squatter.email);

    expect((await me(booted, squatter.cookie).expect(401)).body).toEqual(AUTH_REQUIRED);
    const elsewhere = await lastReadUntil(
      () => me(first.http, squatter.cookie),
      (seen) => seen.status === 401,
    );
    expect([elsewhere.status, elsewhere.body]).toEqual([401, AUTH_REQUIRED]);
    expect((await login(booted, squatter.email, SQUATTER_PASSWORD).expect(400)).body).toEqual(
      INVALID_CREDENTIALS,
    );
    const admin = await login(booted, squatter.email, ADMIN_PASSWORD).expect(200);
    expect(admin.body.user).toEqual({
      id: squatter.id,
      email: squatter.email,
      firstName: null,
      lastName: null,
      roles: ALL_ROLES,
    });
  });

  it('takes over an unverified registration: verified, every role, only ADMIN_PASSWORD logs in', async () => {
    const email = uniqueEmail('pending');
    await first.http.post('/api/auth/register').send({ email, password: SQUATTER_PASSWORD }).expect(200);

    const booted = await bootWithAdmin(email);

    expect((await login(booted, email, SQUATTER_PASSWORD).expect(400)).body).toEqual(INVALID_CREDENTIALS);
    const admin = await login(booted, email, ADMIN_PASSWORD).expect(200);
    expect(admin.body.user.roles).toEqual(ALL_ROLES);
  });

  it('keeps the sessions on a restart with the same password, ends them when ADMIN_PASSWORD changes', async () => {
    const email = uniqueEmail('root');
    const booted = await bootWithAdmin(email);
    const cookie = await logIn(booted, email, ADMIN_PASSWORD);

    const restarted = await bootWithAdmin(email.toUpperCase());
    expect((await me(restarted, cookie).expect(200)).body.user.roles).toEqual(ALL_ROLES);
    expect((await me(first.http, cookie).expect(200)).body.user.email).toBe(email);

    const changed = await bootWithAdmin(email, `${PASSWORD}-new`);
    expect((await me(changed, cookie).expect(401)).body).toEqual(AUTH_REQUIRED);
    expect((await login(changed, email, ADMIN_PASSWORD).expect(400)).body).toEqual(INVALID_CREDENTIALS);
    await logIn(changed, email, `${PASSWORD}-new`);
  });
});
