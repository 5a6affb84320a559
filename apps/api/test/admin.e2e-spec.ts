import { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { accountChangedChannel, UsersAdminService } from '@solar/domain';
import { REDIS } from '@solar/redis';
import {
  createTestEnvironment,
  Http,
  lastReadUntil,
  logIn,
  PASSWORD,
  signUp,
  TestEnvironment,
  uniqueEmail,
  waitFor,
} from '@solar/testing';
import { startApi } from './support/api-harness';

// jest.config.js sets testTimeout inside the e2e project, where Jest does not read it; several
// tests here boot extra api instances and hash passwords, which takes seconds on a busy machine.
jest.setTimeout(30_000);

const ADMIN_PASSWORD = 'Root-Pass-2026';
const ALL_ROLES = ['User', 'Admin', 'Overseer'];
const AUTH_REQUIRED = { message: 'Authentication required' };
const INSUFFICIENT_ROLE = { message: 'Insufficient role' };
const USER_NOT_FOUND = { message: 'User not found' };
const INVALID_CREDENTIALS = { success: false, message: 'Invalid email or password', user: null };
const ADMIN_USER_KEYS = [
  'createdAt',
  'email',
  'emailVerified',
  'firstName',
  'id',
  'lastName',
  'roles',
  'sunSourceCount',
];
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Account {
  email: string;
  cookie: string;
  id: string;
}

/** A tag of letters and digits only, so that searching for it finds exactly the users of one test. */
function uniqueTag(label: string): string {
  return `${label}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

describe('administration /api/admin', () => {
  const adminEmail = uniqueEmail('root');
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  /** The bootstrap administrator: User, Admin and Overseer. */
  let root: Account;
  /** A plain User. */
  let plain: Account;
  /** An Admin who is not an Overseer. */
  let admin: Account;

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD });
    ({ app, http } = await startApi(env.config));
    const rootCookie = await logIn(http, adminEmail, ADMIN_PASSWORD);
    const me = await http.get('/api/auth/me').set('Cookie', rootCookie).expect(200);
    root = { email: adminEmail, cookie: rootCookie, id: me.body.user.id };
    [plain, admin] = await Promise.all([signUp(http, env.mail), signUp(http, env.mail)]);
    await setRoles(admin.id, ['User', 'Admin']).expect(200);
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  function withCookie(test: request.Test, cookie?: string): request.Test {
    return cookie ? test.set('Cookie', cookie) : test;
  }

  function listUsers(query: Record<string, string | number> = {}, cookie = root.cookie) {
    return http.get('/api/admin/users').query(query).set('Cookie', cookie);
  }

  function setRoles(id: string, roles: unknown, cookie = root.cookie) {
    return http.put(`/api/admin/users/${id}/roles`).set('Cookie', cookie).send({ roles });
  }

  function deleteUser(id: string, cookie = root.cookie) {
    return http.delete(`/api/admin/users/${id}`).set('Cookie', cookie);
  }

  function stats(cookie = root.cookie) {
    return http.get('/api/admin/stats').set('Cookie', cookie);
  }

  function me(cookie: string) {
    return http.get('/api/auth/me').set('Cookie', cookie);
  }

  /** Registers without verifying (one password hash, no login): enough for the listing. */
  async function register(
    fields: { email?: string; firstName?: string; lastName?: string } = {},
  ): Promise<string> {
    const email = fields.email ?? uniqueEmail();
    await http
      .post('/api/auth/register')
      .send({ password: PASSWORD, ...fields, email })
      .expect(200);
    return email.toLowerCase();
  }

  async function rolesOf(cookie: string): Promise<string[]> {
    return (await me(cookie).expect(200)).body.user.roles;
  }

  describe('the first administrator from ADMIN_EMAIL / ADMIN_PASSWORD', () => {
    it('logs in with ADMIN_PASSWORD, holds every role and is verified', async () => {
      const cookie = await logIn(http, adminEmail, ADMIN_PASSWORD);
      const response = await me(cookie).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: null,
        user: { id: root.id, email: adminEmail, firstName: null, lastName: null, roles: ALL_ROLES },
      });
      const listed = await listUsers({ search: adminEmail }).expect(200);
      expect(listed.body.total).toBe(1);
      expect(listed.body.items[0]).toMatchObject({ id: root.id, emailVerified: true, roles: ALL_ROLES });
    });

    it('is not duplicated, and does not fail, when a second instance boots with the same environment', async () => {
      const second = await startApi(env.configWith({}));
      try {
        const listed = await listUsers({ search: adminEmail }).expect(200);
        expect(listed.body.total).toBe(1);
        const cookie = await logIn(second.http, adminEmail, ADMIN_PASSWORD);
        expect((await second.http.get('/api/auth/me').set('Cookie', cookie).expect(200)).body.user.id).toBe(
          root.id,
        );
      } finally {
        await second.app.close();
      }
    });

    it('is neither duplicated nor logged out by a restart with the e-mail in another case', async () => {
      // An existing account with that e-mail that is not the operator's is taken over instead:
      // see admin-bootstrap.e2e-spec.ts.
      const restarted = await startApi(env.configWith({ ADMIN_EMAIL: adminEmail.toUpperCase() }));
      try {
        expect((await listUsers({ search: adminEmail }).expect(200)).body.total).toBe(1);
        expect((await me(root.cookie).expect(200)).body.user.roles).toEqual(ALL_ROLES);
        await logIn(restarted.http, adminEmail, ADMIN_PASSWORD);
      } finally {
        await restarted.app.close();
      }
    });

    it('is created exactly once when two api replicas bootstrap it at the same moment', async () => {
      // Two replicas starting together each run this bootstrap step; driven here through the
      // service, because a replica whose boot fails cannot be closed and would keep Jest alive.
      const bootstrap = app.get(UsersAdminService);
      const email = uniqueEmail('replicas');
      const outcomes = await Promise.allSettled([
        bootstrap.ensureAdministrator(email, ADMIN_PASSWORD),
        bootstrap.ensureAdministrator(email, ADMIN_PASSWORD),
      ]);
      expect(
        outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'ok')),
      ).toEqual(['ok', 'ok']);
      expect((await listUsers({ search: email }).expect(200)).body.total).toBe(1);
      const cookie = await logIn(http, email, ADMIN_PASSWORD);
      expect(await rolesOf(cookie)).toEqual(ALL_ROLES);
    });
  });

  describe('access (Admin+ only)', () => {
    const endpoints: Array<[string, (cookie?: string) => request.Test]> = [
      ['GET /api/admin/users', (cookie) => withCookie(http.get('/api/admin/users'), cookie)],
      [
        'PUT /api/admin/users/{id}/roles',
        (cookie) =>
          withCookie(http.put(`/api/admin/users/${plain.id}/roles`), cookie).send({ roles: ALL_ROLES }),
      ],
      [
        'DELETE /api/admin/users/{id}',
        (cookie) => withCookie(http.delete(`/api/admin/users/${root.id}`), cookie),
      ],
      ['GET /api/admin/stats', (cookie) => withCookie(http.get('/api/admin/stats'), cookie)],
    ];

    it.each(endpoints)('%s answers 401 without a session', async (_name, send) => {
      const response = await send().expect(401);
      expect(response.body).toEqual(AUTH_REQUIRED);
    });

    it.each(endpoints)('%s answers 401 with a forged session cookie', async (_name, send) => {
      const response = await send('solar.sid=s%3Aforged.signature').expect(401);
      expect(response.body).toEqual(AUTH_REQUIRED);
    });

    it.each(endpoints)(
      '%s answers 403 "Insufficient role" to a plain User, changing nothing',
      async (_name, send) => {
        const response = await send(plain.cookie).expect(403);
        expect(response.body).toEqual(INSUFFICIENT_ROLE);
        expect(await rolesOf(plain.cookie)).toEqual(['User']);
        await me(root.cookie).expect(200);
      },
    );

    it.each(endpoints)(
      '%s lets an Admin who is not an Overseer in (no 401/403 from the guards)',
      async (name, send) => {
        const response = await send(admin.cookie);
        // The Admin reaches the handler: PUT to plain succeeds or the Overseer rule answers, DELETE of the
        // Overseer is refused by the service with its own message, never the guard's.
        expect(response.status).not.toBe(401);
        expect(response.body).not.toEqual(INSUFFICIENT_ROLE);
        if (name.startsWith('GET')) expect(response.status).toBe(200);
      },
    );
  });

  describe('GET /api/admin/users', () => {
    const tag = uniqueTag('page');
    /** The three newest accounts carrying `tag`, oldest first. */
    const trio: string[] = [];

    beforeAll(async () => {
      // 20 accounts concurrently, then 3 one after another so that their order is known.
      const bulk = Array.from({ length: 20 }, (_, index) => index);
      for (let start = 0; start < bulk.length; start += 5) {
        await Promise.all(bulk.slice(start, start + 5).map(() => register({ lastName: `Bulk${tag}` })));
      }
      for (const first of ['Alpha', 'Beta', 'Gamma'])
        trio.push(await register({ firstName: first, lastName: `Trio${tag}` }));
    });

    it('answers { items, total, page, pageSize } with the admin view of each account, newest first', async () => {
      const response = await listUsers().expect(200);
      expect(Object.keys(response.body).sort()).toEqual(['items', 'page', 'pageSize', 'total']);
      const { items, total, page, pageSize } = response.body;
      expect(page).toBe(1);
      expect(pageSize).toBe(20);
      expect(total).toBeGreaterThanOrEqual(26);
      expect(items).toHaveLength(20);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(ADMIN_USER_KEYS);
        expect(item.createdAt).toMatch(ISO_TIMESTAMP);
        expect(item.sunSourceCount).toBe(0);
      }
      const created = items.map((item: { createdAt: string }) => Date.parse(item.createdAt));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect(items[0]).toEqual({
        id: expect.any(String),
        email: trio[2],
        firstName: 'Gamma',
        lastName: `Trio${tag}`,
        roles: ['User'],
        createdAt: expect.stringMatching(ISO_TIMESTAMP),
        emailVerified: false,
        sunSourceCount: 0,
      });
      expect(items.slice(1, 3).map((item: { email: string }) => item.email)).toEqual([trio[1], trio[0]]);
    });

    it('reports verified accounts and their roles', async () => {
      const response = await listUsers({ search: admin.email }).expect(200);
      expect(response.body.items).toEqual([
        {
          id: admin.id,
          email: admin.email,
          firstName: null,
          lastName: null,
          roles: ['User', 'Admin'],
          createdAt: expect.stringMatching(ISO_TIMESTAMP),
          emailVerified: true,
          sunSourceCount: 0,
        },
      ]);
    });

    it('continues on page 2 with the default page size', async () => {
      const first = await listUsers().expect(200);
      const second = await listUsers({ page: 2 }).expect(200);
      expect(second.body.page).toBe(2);
      expect(second.body.total).toBe(first.body.total);
      expect(second.body.items).toHaveLength(Math.min(20, first.body.total - 20));
      const firstIds = new Set(first.body.items.map((item: { id: string }) => item.id));
      expect(second.body.items.filter((item: { id: string }) => firstIds.has(item.id))).toEqual([]);
    });

    it.each([
      [0, 1],
      [1, 1],
      [2, 2],
      [99, 99],
      [100, 100],
      [101, 100],
      [-5, 1],
      [1_000_000, 100],
    ])('clamps pageSize=%p to %p', async (requested, expected) => {
      const response = await listUsers({ pageSize: requested }).expect(200);
      expect(response.body.pageSize).toBe(expected);
      expect(response.body.items.length).toBeLessThanOrEqual(expected);
      expect(response.body.items).toHaveLength(Math.min(expected, response.body.total));
    });

    it('returns one account for pageSize=1 although the search matches 23', async () => {
      const response = await listUsers({ search: tag, pageSize: 1 }).expect(200);
      expect(response.body).toMatchObject({ total: 23, page: 1, pageSize: 1 });
      expect(response.body.items.map((item: { email: string }) => item.email)).toEqual([trio[2]]);
    });

    it.each([0, -3])('reads page=%p as page 1', async (requested) => {
      const expected = await listUsers({ search: tag, pageSize: 5 }).expect(200);
      const response = await listUsers({ search: tag, pageSize: 5, page: requested }).expect(200);
      expect(response.body.page).toBe(1);
      expect(response.body.items).toEqual(expected.body.items);
    });

    it('returns the second-newest account on page 2 with pageSize 1', async () => {
      const response = await listUsers({ search: tag, page: 2, pageSize: 1 }).expect(200);
      expect(response.body).toMatchObject({ total: 23, page: 2, pageSize: 1 });
      expect(response.body.items.map((item: { email: string }) => item.email)).toEqual([trio[1]]);
    });

    it('returns no items past the last page, with the total', async () => {
      const response = await listUsers({ search: tag, page: 3, pageSize: 20 }).expect(200);
      expect(response.body).toEqual({ items: [], total: 23, page: 3, pageSize: 20 });
    });

    it.each([
      ['pageSize=abc', 'pageSize'],
      ['pageSize=2.5', 'pageSize'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=1&page=2', 'page'],
    ])('answers 400 with a validation error for %s', async (query, field) => {
      const response = await http.get(`/api/admin/users?${query}`).set('Cookie', root.cookie).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    });

    describe('search', () => {
      const searchTag = uniqueTag('find');
      const people: Record<string, string> = {};

      beforeAll(async () => {
        people.byFirst = await register({ firstName: `Marie${searchTag}` });
        people.byLast = await register({ lastName: `Curie${searchTag}` });
        people.byEmail = await register({ email: `Pierre.${searchTag}@Example.com` });
        people.percent = await register({ lastName: `100%${searchTag}` });
        people.percentLookalike = await register({ lastName: `100abc${searchTag}` });
        people.underscore = await register({ firstName: `snake_${searchTag}` });
        people.underscoreLookalike = await register({ firstName: `snakeX${searchTag}` });
      });

      async function emailsFound(
        search: string,
        query: Record<string, string | number> = {},
      ): Promise<string[]> {
        const response = await listUsers({ search, ...query }).expect(200);
        expect(response.body.total).toBe(response.body.items.length);
        return response.body.items.map((item: { email: string }) => item.email);
      }

      it.each([
        ['the first name', () => `MARIE${searchTag.toUpperCase()}`, 'byFirst'],
        ['the last name', () => `curie${searchTag}`.toUpperCase(), 'byLast'],
        ['the e-mail', () => `pierre.${searchTag}@EXAMPLE`, 'byEmail'],
        ['a part of the first name', () => `ARIE${searchTag}`.toLowerCase(), 'byFirst'],
      ])('matches %s case-insensitively', async (_what, search, who) => {
        expect(await emailsFound(search())).toEqual([people[who]]);
      });

      it('counts the filtered set in total', async () => {
        const response = await listUsers({ search: searchTag, pageSize: 2 }).expect(200);
        expect(response.body.total).toBe(7);
        expect(response.body.items).toHaveLength(2);
      });

      it('treats % as a literal character', async () => {
        const everyone = (await listUsers().expect(200)).body.total;
        expect(everyone).toBeGreaterThan(1);
        expect(await emailsFound('%')).toEqual([people.percent]);
        expect(await emailsFound(`100%${searchTag}`)).toEqual([people.percent]);
      });

      it('treats _ as a literal character', async () => {
        expect(await emailsFound('_')).toEqual([people.underscore]);
        expect(await emailsFound(`snake_${searchTag}`)).toEqual([people.underscore]);
      });

      it('treats a backslash as a literal character', async () => {
        expect(await emailsFound('\\')).toEqual([]);
        expect(await emailsFound(`\\${searchTag}`)).toEqual([]);
      });

      it('finds nothing for a term nobody carries', async () => {
        const response = await listUsers({ search: `absent${searchTag}` }).expect(200);
        expect(response.body).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
      });
    });
  });

  describe('PUT /api/admin/users/{id}/roles', () => {
    it('answers 200 with the admin view of the account', async () => {
      const target = await signUp(http, env.mail);
      const response = await setRoles(target.id, ['User', 'Admin'], admin.cookie).expect(200);
      expect(response.body).toEqual({
        id: target.id,
        email: target.email,
        firstName: null,
        lastName: null,
        roles: ['User', 'Admin'],
        createdAt: expect.stringMatching(ISO_TIMESTAMP),
        emailVerified: true,
        sunSourceCount: 0,
      });
      const listed = await listUsers({ search: target.email }).expect(200);
      expect(listed.body.items).toEqual([response.body]);
    });

    it("takes effect at once for the target's existing session", async () => {
      const target = await signUp(http, env.mail);
      await stats(target.cookie).expect(403);

      await setRoles(target.id, ['User', 'Admin'], admin.cookie).expect(200);
      expect(await rolesOf(target.cookie)).toEqual(['User', 'Admin']);
      const promoted = await stats(target.cookie).expect(200);
      expect(Object.keys(promoted.body).sort()).toEqual([
        'messagesLastHour',
        'sunSources',
        'telemetryRows',
        'users',
      ]);
      await listUsers({}, target.cookie).expect(200);

      await setRoles(target.id, ['User'], admin.cookie).expect(200);
      expect(await rolesOf(target.cookie)).toEqual(['User']);
      expect((await stats(target.cookie).expect(403)).body).toEqual(INSUFFICIENT_ROLE);
    });

    it.each([
      ['an empty array', []],
      ['an unknown role', ['Root']],
      ['a role in the wrong case', ['admin']],
      ['duplicates', ['User', 'User']],
      ['a string instead of an array', 'Admin'],
      ['null', null],
      ['numbers', [1]],
      ['nested arrays', [['User']]],
    ])('answers 400 { errors.roles } for %s', async (_case, roles) => {
      const target = plain.id;
      const response = await setRoles(target, roles).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors.roles).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(await rolesOf(plain.cookie)).toEqual(['User']);
    });

    it('answers 400 when roles are missing, or with an unknown property', async () => {
      const missing = await http
        .put(`/api/admin/users/${plain.id}/roles`)
        .set('Cookie', root.cookie)
        .send({})
        .expect(400);
      expect(missing.body.errors.roles).toEqual(expect.arrayContaining([expect.any(String)]));
      const extra = await http
        .put(`/api/admin/users/${plain.id}/roles`)
        .set('Cookie', root.cookie)
        .send({ roles: ['User'], emailVerified: true })
        .expect(400);
      expect(extra.body).toEqual({ errors: { emailVerified: ['property emailVerified should not exist'] } });
    });

    it.each(['not-a-uuid', '12345', `${randomUUID()}x`])(
      'answers 400 { message } for the id %p',
      async (id) => {
        const response = await setRoles(id, ['User']).expect(400);
        expect(response.body).toEqual({ message: expect.any(String) });
      },
    );

    it('answers 404 "User not found" for an unknown id', async () => {
      expect((await setRoles(randomUUID(), ['User']).expect(404)).body).toEqual(USER_NOT_FOUND);
    });

    it('forbids an Admin who is not an Overseer to grant Overseer', async () => {
      const response = await setRoles(plain.id, ['User', 'Overseer'], admin.cookie).expect(403);
      expect(response.body).toEqual({ message: expect.any(String) });
      expect(await rolesOf(plain.cookie)).toEqual(['User']);
      const self = await setRoles(admin.id, ALL_ROLES, admin.cookie).expect(403);
      expect(self.body).toEqual({ message: expect.any(String) });
      expect(await rolesOf(admin.cookie)).toEqual(['User', 'Admin']);
    });

    it("forbids an Admin who is not an Overseer to change an Overseer's roles", async () => {
      const response = await setRoles(root.id, ['User'], admin.cookie).expect(403);
      expect(response.body).toEqual({ message: expect.any(String) });
      expect(await rolesOf(root.cookie)).toEqual(ALL_ROLES);
    });

    it('lets the Overseer grant Overseer, which opens the admin endpoints', async () => {
      const target = await signUp(http, env.mail);
      const response = await setRoles(target.id, ['User', 'Overseer']).expect(200);
      expect(response.body.roles).toEqual(['User', 'Overseer']);
      expect(await rolesOf(target.cookie)).toEqual(['User', 'Overseer']);
      await stats(target.cookie).expect(200);
      // Now an Overseer, the target is out of reach of a mere Admin.
      await setRoles(target.id, ['User'], admin.cookie).expect(403);
      await deleteUser(target.id, admin.cookie).expect(403);
    });
  });

  describe('DELETE /api/admin/users/{id}', () => {
    it('answers 204 with no body; the account can no longer log in and its session ends', async () => {
      const victim = await signUp(http, env.mail);
      const response = await deleteUser(victim.id, admin.cookie).expect(204);
      expect(response.text).toBe('');
      expect(response.headers['content-length'] ?? '0').toBe('0');

      const login = await http
        .post('/api/auth/login')
        .send({ email: victim.email, password: PASSWORD })
        .expect(400);
      expect(login.body).toEqual(INVALID_CREDENTIALS);
      expect((await me(victim.cookie).expect(401)).body).toEqual(AUTH_REQUIRED);
      expect((await listUsers({ search: victim.email }).expect(200)).body.total).toBe(0);

      expect((await deleteUser(victim.id, admin.cookie).expect(404)).body).toEqual(USER_NOT_FOUND);
    });

    it('frees the e-mail address for a new registration', async () => {
      const victim = await signUp(http, env.mail);
      await deleteUser(victim.id).expect(204);
      await http.post('/api/auth/register').send({ email: victim.email, password: PASSWORD }).expect(200);
    });

    it('refuses to delete your own account', async () => {
      for (const self of [root, admin]) {
        const response = await deleteUser(self.id, self.cookie).expect(400);
        expect(response.body).toEqual({ message: 'You cannot delete your own account' });
        await me(self.cookie).expect(200);
      }
    });

    it('forbids an Admin who is not an Overseer to delete an Overseer', async () => {
      const response = await deleteUser(root.id, admin.cookie).expect(403);
      expect(response.body).toEqual({ message: expect.any(String) });
      await me(root.cookie).expect(200);
    });

    it('lets the Overseer delete an Admin', async () => {
      const other = await signUp(http, env.mail);
      await setRoles(other.id, ['User', 'Admin']).expect(200);
      await deleteUser(other.id).expect(204);
      await me(other.cookie).expect(401);
    });

    it.each(['not-a-uuid', '0', `${randomUUID()}0`])('answers 400 { message } for the id %p', async (id) => {
      expect((await deleteUser(id).expect(400)).body).toEqual({ message: expect.any(String) });
    });

    it('answers 404 "User not found" for an unknown id', async () => {
      expect((await deleteUser(randomUUID()).expect(404)).body).toEqual(USER_NOT_FOUND);
    });
  });

  describe('a second api process', () => {
    interface Elsewhere {
      me(): request.Test;
      listUsers(): request.Test;
    }

    /** How many processes hear account changes (AccountCache's channel). */
    async function accountListeners(): Promise<number> {
      const [, count] = await app.get<Redis>(REDIS).pubsub('NUMSUB', accountChangedChannel(env.config));
      return Number(count);
    }

    /**
     * Starts another api on the same database, Redis and sessions, and logs `email` in there.
     * Its account cache keeps nothing until it has subscribed, on its first lookup: `run` starts
     * once it has.
     */
    async function onSecondProcess(
      email: string,
      run: (elsewhere: Elsewhere) => Promise<void>,
    ): Promise<void> {
      const listeners = await accountListeners();
      const second = await startApi(env.configWith({}));
      try {
        const cookie = await logIn(second.http, email);
        const elsewhere: Elsewhere = {
          me: () => second.http.get('/api/auth/me').set('Cookie', cookie),
          listUsers: () => second.http.get('/api/admin/users').set('Cookie', cookie),
        };
        await waitFor(
          async () => {
            await elsewhere.me().expect(200);
            return (await accountListeners()) > listeners;
          },
          'the second process to subscribe',
          2000,
        );
        await run(elsewhere);
      } finally {
        await second.app.close();
      }
    }

    it('sees roles changed through the first process on its next request', async () => {
      const target = await signUp(http, env.mail);
      await onSecondProcess(target.email, async (elsewhere) => {
        // From here on the second process holds the account, for 30 s unless told of a change.
        expect((await elsewhere.me().expect(200)).body.user.roles).toEqual(['User']);
        expect((await elsewhere.listUsers().expect(403)).body).toEqual(INSUFFICIENT_ROLE);

        await setRoles(target.id, ['User', 'Admin']).expect(200);
        // The notice crosses Redis: a moment, far below the cache's 30 s.
        const roles = await lastReadUntil(
          async () => (await elsewhere.me().expect(200)).body.user.roles as string[],
          (seen) => seen.includes('Admin'),
        );
        expect(roles).toEqual(['User', 'Admin']);
        await elsewhere.listUsers().expect(200);

        await setRoles(target.id, ['User']).expect(200);
        const refused = await lastReadUntil(
          () => elsewhere.listUsers(),
          (seen) => seen.status === 403,
        );
        expect([refused.status, refused.body]).toEqual([403, INSUFFICIENT_ROLE]);
        expect((await elsewhere.me().expect(200)).body.user.roles).toEqual(['User']);
      });
    });

    it('ends the session of an account deleted through the first process with 401', async () => {
      const victim = await signUp(http, env.mail);
      await onSecondProcess(victim.email, async (elsewhere) => {
        expect((await elsewhere.me().expect(200)).body.user.id).toBe(victim.id);

        await deleteUser(victim.id).expect(204);
        const response = await lastReadUntil(
          () => elsewhere.me(),
          (seen) => seen.status === 401,
        );
        expect([response.status, response.body]).toEqual([401, AUTH_REQUIRED]);
        expect((await elsewhere.listUsers().expect(401)).body).toEqual(AUTH_REQUIRED);
      });
    });
  });

  describe('GET /api/admin/stats', () => {
    it('answers integer counts, users being the number of accounts', async () => {
      const response = await stats().expect(200);
      expect(Object.keys(response.body).sort()).toEqual([
        'messagesLastHour',
        'sunSources',
        'telemetryRows',
        'users',
      ]);
      for (const value of Object.values(response.body)) {
        expect(Number.isInteger(value)).toBe(true);
        expect(value as number).toBeGreaterThanOrEqual(0);
      }
      const listed = await listUsers({ pageSize: 1 }).expect(200);
      expect(response.body.users).toBe(listed.body.total);
      expect(response.body.users).toBeGreaterThan(3);
    });

    it('counts a new registration at once, and a deletion', async () => {
      const before = (await stats().expect(200)).body.users;
      const email = await register();
      expect((await stats().expect(200)).body.users).toBe(before + 1);
      const id = (await listUsers({ search: email }).expect(200)).body.items[0].id;
      await deleteUser(id).expect(204);
      expect((await stats().expect(200)).body.users).toBe(before);
    });
  });
});
