import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import {
  createTestEnvironment,
  Http,
  logIn,
  PASSWORD,
  seededRandom,
  TestEnvironment,
  uniqueEmail,
} from '@solar/testing';
import { startApi } from './support/api-harness';

// jest.config.js sets testTimeout inside the e2e project, where Jest does not read it.
jest.setTimeout(30_000);

type Method = 'get' | 'post' | 'put' | 'delete';
type Caller = 'anonymous' | 'overseer';
type FieldKind = 'string' | 'boolean' | 'roles';

interface Endpoint {
  name: string;
  method: Method;
  path: string;
  /** `public` routes need no session; `session` routes any; `admin` routes Admin+. */
  access: 'public' | 'session' | 'admin';
  /** The JSON body's fields and what each expects; absent for routes that take no body. */
  fields?: Record<string, FieldKind>;
  optional?: string[];
  /** A body that passes validation (and then fails or succeeds harmlessly). */
  valid?: () => Record<string, unknown>;
  /** What the route answers when no body is sent, per caller (routes without a body). */
  plain?: Record<Caller, number>;
}

/** An id no account has: PUT and DELETE reach the service and find nothing, so nothing changes. */
const UNKNOWN_ID = randomUUID();
const ADMIN_EMAIL = uniqueEmail('overseer');
const AUTH_REQUIRED = { message: 'Authentication required' };
const MALFORMED = { message: 'Malformed JSON body' };
const UNSUPPORTED_TYPE = { message: 'Content-Type must be application/json' };
const TOO_LARGE = { message: 'Request body too large' };

const REGISTER: Endpoint = {
  name: 'POST /api/auth/register',
  method: 'post',
  path: '/api/auth/register',
  access: 'public',
  fields: { email: 'string', password: 'string', firstName: 'string', lastName: 'string' },
  optional: ['firstName', 'lastName'],
  valid: () => ({ email: uniqueEmail('fuzz'), password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }),
};
const VERIFY: Endpoint = {
  name: 'POST /api/auth/verify-email',
  method: 'post',
  path: '/api/auth/verify-email',
  access: 'public',
  fields: { email: 'string', code: 'string' },
  valid: () => ({ email: uniqueEmail('nobody'), code: '123456' }),
};
const RESEND: Endpoint = {
  name: 'POST /api/auth/resend-code',
  method: 'post',
  path: '/api/auth/resend-code',
  access: 'public',
  fields: { email: 'string' },
  valid: () => ({ email: uniqueEmail('nobody') }),
};
const LOGIN: Endpoint = {
  name: 'POST /api/auth/login',
  method: 'post',
  path: '/api/auth/login',
  access: 'public',
  fields: { email: 'string', password: 'string', rememberMe: 'boolean' },
  optional: ['rememberMe'],
  valid: () => ({ email: uniqueEmail('nobody'), password: PASSWORD, rememberMe: true }),
};
const LOGOUT: Endpoint = {
  name: 'POST /api/auth/logout',
  method: 'post',
  path: '/api/auth/logout',
  access: 'session',
  plain: { anonymous: 401, overseer: 200 },
};
const ME: Endpoint = {
  name: 'GET /api/auth/me',
  method: 'get',
  path: '/api/auth/me',
  access: 'session',
  plain: { anonymous: 401, overseer: 200 },
};
const LIST_USERS: Endpoint = {
  name: 'GET /api/admin/users',
  method: 'get',
  path: '/api/admin/users',
  access: 'admin',
  plain: { anonymous: 401, overseer: 200 },
};
const SET_ROLES: Endpoint = {
  name: 'PUT /api/admin/users/{id}/roles',
  method: 'put',
  path: `/api/admin/users/${UNKNOWN_ID}/roles`,
  access: 'admin',
  fields: { roles: 'roles' },
  valid: () => ({ roles: ['User'] }),
};
const DELETE_USER: Endpoint = {
  name: 'DELETE /api/admin/users/{id}',
  method: 'delete',
  path: `/api/admin/users/${UNKNOWN_ID}`,
  access: 'admin',
  plain: { anonymous: 401, overseer: 404 },
};
const STATS: Endpoint = {
  name: 'GET /api/admin/stats',
  method: 'get',
  path: '/api/admin/stats',
  access: 'admin',
  plain: { anonymous: 401, overseer: 200 },
};
const HEALTH: Endpoint = {
  name: 'GET /api/health',
  method: 'get',
  path: '/api/health',
  access: 'public',
  plain: { anonymous: 200, overseer: 200 },
};

const ENDPOINTS = [
  REGISTER,
  VERIFY,
  RESEND,
  LOGIN,
  LOGOUT,
  ME,
  LIST_USERS,
  SET_ROLES,
  DELETE_USER,
  STATS,
  HEALTH,
];
const BODY_ENDPOINTS = ENDPOINTS.filter((endpoint) => endpoint.fields);
const CALLERS: Caller[] = ['anonymous', 'overseer'];

/** Every endpoint for both callers: `[label, endpoint, caller]` rows for `it.each`. */
function everyEndpoint(): Array<[string, Endpoint, Caller]> {
  return ENDPOINTS.flatMap((endpoint) =>
    CALLERS.map((caller): [string, Endpoint, Caller] => [`${endpoint.name} as ${caller}`, endpoint, caller]),
  );
}

/** The cross product of endpoint rows and payload rows. */
function cross<P>(
  rows: Array<[string, Endpoint, Caller]>,
  payloads: Array<[string, P]>,
): Array<[string, Endpoint, Caller, P]> {
  return rows.flatMap(([label, endpoint, caller]) =>
    payloads.map(([name, payload]): [string, Endpoint, Caller, P] => [
      `${label} ← ${name}`,
      endpoint,
      caller,
      payload,
    ]),
  );
}

/** Whether a body-taking route lets this caller through to validation. */
function reachesValidation(endpoint: Endpoint, caller: Caller): boolean {
  return endpoint.access === 'public' || caller === 'overseer';
}

/** The status and body a body-less request gets, for routes that take no body. */
function plainAnswer(endpoint: Endpoint, caller: Caller): number {
  if (!endpoint.plain) throw new Error(`${endpoint.name} takes a body`);
  return endpoint.plain[caller];
}

/** A JSON text whose keys may be `__proto__` and friends (an object literal would set the prototype). */
function rawJson(value: unknown): string {
  return JSON.stringify(value);
}

function withKey(key: string, value: unknown): Record<string, unknown> {
  const object = Object.create(null) as Record<string, unknown>;
  object[key] = value;
  return object;
}

describe('hostile input never gives a 5xx', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let overseerCookie: string;
  /** Logout ends the session it is given, so it gets one of its own, renewed when spent. */
  let logoutCookie: string | undefined;

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL, ADMIN_PASSWORD: PASSWORD });
    ({ app, http } = await startApi(env.config));
    overseerCookie = await logIn(http, ADMIN_EMAIL);
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  async function cookieFor(endpoint: Endpoint, caller: Caller): Promise<string | undefined> {
    if (caller === 'anonymous') return undefined;
    if (endpoint !== LOGOUT) return overseerCookie;
    logoutCookie ??= await logIn(http, ADMIN_EMAIL);
    return logoutCookie;
  }

  /** Sends one request to `endpoint` as `caller`; `build` adds headers and the body. */
  async function hit(
    endpoint: Endpoint,
    caller: Caller,
    build: (test: request.Test) => request.Test = (test) => test,
    path = endpoint.path,
  ): Promise<request.Response> {
    const cookie = await cookieFor(endpoint, caller);
    let test = http[endpoint.method](path);
    if (cookie) test = test.set('Cookie', cookie);
    const response = await build(test);
    if (endpoint === LOGOUT && cookie && response.status === 200) logoutCookie = undefined;
    return response;
  }

  function json(text: string): (test: request.Test) => request.Test {
    return (test) => test.set('Content-Type', 'application/json').send(text);
  }

  /** A gzip-encoded JSON body, sent byte for byte (superagent would serialize a Buffer as JSON). */
  function gzipped(bytes: Buffer): (test: request.Test) => request.Test {
    return (test) =>
      test
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .serialize((body: unknown) => body as string)
        .send(bytes);
  }

  /** The minimum of every case: no 5xx, a JSON answer, and an error body where it is an error. */
  function expectHandled(response: request.Response): void {
    expect(response.status).toBeLessThan(500);
    if (response.status === 204) return;
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(typeof response.body).toBe('object');
    if (response.status >= 400) {
      const body = response.body as { message?: unknown; errors?: unknown };
      expect(
        typeof body.message === 'string' || (typeof body.errors === 'object' && body.errors !== null),
      ).toBe(true);
    }
  }

  function expectValidationError(response: request.Response, field: string): void {
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['errors']);
    expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
  }

  /** What a request whose body passes parsing gets when the route ignores bodies. */
  function expectPlainAnswer(response: request.Response, endpoint: Endpoint, caller: Caller): void {
    expect(response.status).toBe(plainAnswer(endpoint, caller));
    if (response.status === 401) expect(response.body).toEqual(AUTH_REQUIRED);
    expectHandled(response);
  }

  describe('malformed JSON', () => {
    const payloads: Array<[string, string]> = [
      ['{bad', '{bad'],
      ['[', '['],
      ['"unterminated', '"unterminated'],
      ['{"a":}', '{"a":}'],
      ['{"a":1,}', '{"a":1,}'],
      ["{'a':1}", "{'a':1}"],
      ['whitespace only', '   '],
    ];

    it.each(cross(everyEndpoint(), payloads))(
      '%s: 400 Malformed JSON body (the parser runs before the guards)',
      async (_label, endpoint, caller, text) => {
        const response = await hit(endpoint, caller, json(text));
        expect(response.status).toBe(400);
        expect(response.body).toEqual(MALFORMED);
      },
    );
  });

  describe('a JSON document that is not an object', () => {
    const scalars: Array<[string, string]> = [
      ['a string', '"text"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ];

    it.each(cross(everyEndpoint(), scalars))(
      '%s: 400 { message }',
      async (_label, endpoint, caller, text) => {
        const response = await hit(endpoint, caller, json(text));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ message: expect.any(String) });
      },
    );

    const arrays: Array<[string, string]> = [
      ['an empty array', '[]'],
      [
        'an array of a valid-looking object',
        rawJson([{ email: 'someone@example.com', password: PASSWORD, roles: ['User'] }]),
      ],
    ];

    it.each(cross(everyEndpoint(), arrays))(
      '%s: 4xx where a body is read, ignored elsewhere',
      async (_label, endpoint, caller, text) => {
        const response = await hit(endpoint, caller, json(text));
        if (!endpoint.fields) return expectPlainAnswer(response, endpoint, caller);
        if (reachesValidation(endpoint, caller)) {
          expect(response.status).toBe(400);
          expect(Object.keys(response.body)).toEqual(['errors']);
        } else {
          expect(response.status).toBe(401);
          expect(response.body).toEqual(AUTH_REQUIRED);
        }
      },
    );
  });

  describe('fields of the wrong type', () => {
    const notStrings: Array<[string, unknown]> = [
      ['a number', 42],
      ['zero', 0],
      ['true', true],
      ['false', false],
      ['an empty array', []],
      ['an array of strings', ['someone@example.com']],
      ['an empty object', {}],
      ['an object', { value: 'x' }],
    ];
    const notBooleans: Array<[string, unknown]> = [
      ["'yes'", 'yes'],
      ["'true'", 'true'],
      ["'false'", 'false'],
      ['1', 1],
      ['0', 0],
      ['an array', [true]],
      ['an object', {}],
    ];
    const notRoles: Array<[string, unknown]> = [
      ['a string', 'Admin'],
      ['a number', 1],
      ['true', true],
      ['an object', { 0: 'User', length: 1 }],
      ['null', null],
      ['an array of numbers', [1]],
      ['an array with null', [null]],
      ['a nested array', [['User']]],
      ['an array of objects', [{ role: 'User' }]],
    ];

    const rows: Array<[string, Endpoint, Caller, string, unknown]> = [];
    for (const endpoint of BODY_ENDPOINTS) {
      for (const [field, kind] of Object.entries(endpoint.fields!)) {
        const required = !(endpoint.optional ?? []).includes(field);
        const values = kind === 'string' ? notStrings : kind === 'boolean' ? notBooleans : notRoles;
        const all: Array<[string, unknown]> =
          kind === 'string' && required ? [...values, ['null', null]] : values;
        for (const caller of CALLERS.filter((who) => reachesValidation(endpoint, who))) {
          for (const [name, value] of all)
            rows.push([`${endpoint.name} as ${caller}: ${field} = ${name}`, endpoint, caller, field, value]);
        }
      }
    }

    it.each(rows)('%s → 400 { errors } naming the field', async (_label, endpoint, caller, field, value) => {
      const body = { ...endpoint.valid!(), [field]: value };
      const response = await hit(endpoint, caller, (test) => test.send(body));
      expect(response.status).toBe(400);
      expectValidationError(response, field);
    });

    it.each(
      BODY_ENDPOINTS.flatMap((endpoint) =>
        Object.keys(endpoint.fields!)
          .filter((field) => !(endpoint.optional ?? []).includes(field))
          .map((field): [string, Endpoint, string] => [
            `${endpoint.name}: without ${field}`,
            endpoint,
            field,
          ]),
      ),
    )('%s → 400 { errors } naming the field', async (_label, endpoint, field) => {
      const body = endpoint.valid!();
      delete body[field];
      const response = await hit(endpoint, 'overseer', (test) => test.send(body));
      expect(response.status).toBe(400);
      expectValidationError(response, field);
    });

    it('reads null in an optional field as absent', async () => {
      const registered = await hit(REGISTER, 'anonymous', (test) =>
        test.send({ ...REGISTER.valid!(), firstName: null, lastName: null }),
      );
      expect(registered.status).toBe(200);
      expect(registered.body.success).toBe(true);
      const login = await hit(LOGIN, 'anonymous', (test) =>
        test.send({ ...LOGIN.valid!(), rememberMe: null }),
      );
      expect(login.status).toBe(400);
      expect(login.body).toEqual({ success: false, message: 'Invalid email or password', user: null });
    });

    it('rejects a PUT with the wrong roles type as 401 before validation without a session', async () => {
      const response = await hit(SET_ROLES, 'anonymous', (test) => test.send({ roles: 42 }));
      expect(response.status).toBe(401);
      expect(response.body).toEqual(AUTH_REQUIRED);
    });
  });

  describe('bodies over the limit', () => {
    const tenMegabytes = rawJson({ email: 'a'.repeat(10 * 1024 * 1024) });
    const gzipBomb = gzipSync(Buffer.from(tenMegabytes));

    it.each(everyEndpoint())(
      '%s: a 10 MB body → 413 Request body too large',
      async (_label, endpoint, caller) => {
        const response = await hit(endpoint, caller, json(tenMegabytes));
        expect(response.status).toBe(413);
        expect(response.body).toEqual(TOO_LARGE);
      },
    );

    it.each(everyEndpoint())(
      '%s: 10 MB gzipped to a few kB → 413 once inflated',
      async (_label, endpoint, caller) => {
        expect(gzipBomb.length).toBeLessThan(64 * 1024);
        const response = await hit(endpoint, caller, gzipped(gzipBomb));
        expect(response.status).toBe(413);
        expect(response.body).toEqual(TOO_LARGE);
      },
    );
  });

  describe('content encodings', () => {
    it('accepts a well-formed gzipped JSON body', async () => {
      const response = await hit(LOGIN, 'anonymous', gzipped(gzipSync(Buffer.from(rawJson(LOGIN.valid!())))));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ success: false, message: 'Invalid email or password', user: null });
    });

    it.each(everyEndpoint())(
      '%s: a body that claims gzip but is not → 400 { message }',
      async (_label, endpoint, caller) => {
        const response = await hit(endpoint, caller, gzipped(Buffer.from('{"email":"x"}')));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ message: expect.any(String) });
      },
    );

    it.each(everyEndpoint())('%s: an unknown content encoding → 415', async (_label, endpoint, caller) => {
      const response = await hit(endpoint, caller, (test) =>
        test.set('Content-Type', 'application/json').set('Content-Encoding', 'x-unknown').send('{}'),
      );
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ message: 'Unsupported content encoding' });
    });

    it.each(everyEndpoint())('%s: an unsupported charset → 415', async (_label, endpoint, caller) => {
      const response = await hit(endpoint, caller, (test) =>
        test.set('Content-Type', 'application/json; charset=latin1').send('{}'),
      );
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ message: 'Unsupported charset' });
    });
  });

  describe('prototype-polluting keys', () => {
    const shapes: Array<[string, (key: string) => string]> = [
      ['at the top level', (key) => rawJson(withKey(key, { polluted: true }))],
      ['nested in an object', (key) => rawJson({ outer: { inner: withKey(key, { polluted: true }) } })],
      ['nested in an array', (key) => rawJson({ list: [1, 'two', withKey(key, { polluted: true })] })],
      [
        'beside valid fields',
        (key) =>
          rawJson({
            email: 'someone@example.com',
            password: PASSWORD,
            roles: ['User'],
            ...withKey(key, { polluted: true }),
          }),
      ],
      ['as a nested key path', (key) => rawJson(withKey(key, withKey('prototype', { polluted: true })))],
    ];
    const cases = ['__proto__', 'constructor', 'prototype'].flatMap((key) =>
      shapes.map(([shape, make]): [string, { key: string; text: string }] => [
        `"${key}" ${shape}`,
        { key, text: make(key) },
      ]),
    );

    it.each(cross(everyEndpoint(), cases))(
      '%s → 400 Property name is not allowed',
      async (_label, endpoint, caller, { key, text }) => {
        expect(text).toContain(`"${key}"`);
        const response = await hit(endpoint, caller, json(text));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ message: `Property name "${key}" is not allowed` });
      },
    );

    it.each(ENDPOINTS.map((endpoint): [string, Endpoint] => [endpoint.name, endpoint]))(
      '%s: "__proto__" hidden 80 levels deep is refused too',
      async (_name, endpoint) => {
        let text = rawJson(withKey('__proto__', { polluted: true }));
        for (let level = 0; level < 80; level++) text = `{"a":${text}}`;
        const response = await hit(endpoint, 'overseer', json(text));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ message: expect.any(String) });
      },
    );

    it('leaves Object.prototype clean and the api answering normally afterwards', async () => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
      expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
      expect((await http.get('/api/health').expect(200)).body.status).toBe('ok');
      const me = await http.get('/api/auth/me').set('Cookie', overseerCookie).expect(200);
      expect(me.body.user.roles).toEqual(['User', 'Admin', 'Overseer']);
      const listed = await http.get('/api/admin/users').set('Cookie', overseerCookie).expect(200);
      expect(listed.body.items.every((item: Record<string, unknown>) => !('polluted' in item))).toBe(true);
    });
  });

  describe('content types other than JSON', () => {
    const bodies: Array<[string, (test: request.Test) => request.Test]> = [
      [
        'text/plain',
        (test) => test.set('Content-Type', 'text/plain').send('{"email":"someone@example.com"}'),
      ],
      [
        'application/x-www-form-urlencoded',
        (test) => test.type('form').send('email=someone%40example.com&password=x'),
      ],
      [
        'application/xml',
        (test) => test.set('Content-Type', 'application/xml').send('<email>someone@example.com</email>'),
      ],
      [
        'multipart/form-data',
        (test) =>
          test.set('Content-Type', 'multipart/form-data; boundary=x').send('--x\r\n\r\nhello\r\n--x--'),
      ],
      [
        'application/octet-stream',
        (test) => test.set('Content-Type', 'application/octet-stream').send(Buffer.from('{}')),
      ],
    ];

    it.each(cross(everyEndpoint(), bodies))('%s → 415', async (_label, endpoint, caller, build) => {
      const response = await hit(endpoint, caller, build);
      expect(response.status).toBe(415);
      expect(response.body).toEqual(UNSUPPORTED_TYPE);
    });
  });

  describe('very long strings', () => {
    const huge = 'a'.repeat(100 * 1024);
    const rows: Array<[string, Endpoint, string, unknown]> = [];
    for (const endpoint of BODY_ENDPOINTS) {
      for (const [field, kind] of Object.entries(endpoint.fields!)) {
        if (kind === 'string')
          rows.push([
            `${endpoint.name}: 100 kB ${field}`,
            endpoint,
            field,
            field === 'email' ? `${huge}@example.com` : huge,
          ]);
        if (kind === 'roles') rows.push([`${endpoint.name}: a 100 kB role`, endpoint, field, [huge]]);
      }
    }

    it.each(rows)('%s → 400 { errors } naming the field', async (_label, endpoint, field, value) => {
      const response = await hit(endpoint, 'overseer', (test) =>
        test.send({ ...endpoint.valid!(), [field]: value }),
      );
      expect(response.status).toBe(400);
      expectValidationError(response, field);
    });

    it('answers a 10 kB search with 400 { errors.search }', async () => {
      const response = await hit(LIST_USERS, 'overseer', (test) =>
        test.query({ search: 'x'.repeat(10 * 1024) }),
      );
      expect(response.status).toBe(400);
      expectValidationError(response, 'search');
    });

    it('answers a 100 kB query string below 500 (Node refuses the header block)', async () => {
      const response = await hit(LIST_USERS, 'overseer', (test) =>
        test.query({ search: 'x'.repeat(100 * 1024) }),
      );
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    });
  });

  describe('unicode and control characters', () => {
    const strings: Array<[string, string]> = [
      ['accents, emoji and CJK', 'Zoë Ünïcødé 😀 漢字'],
      ['right-to-left override', '\u202Eevil\u202C'],
      ['zero-width characters', '\uFEFF\u200B\u200D'],
      ['a lone surrogate', '\uD800x'],
      ['a NUL character', 'a\u0000b'],
      ['only a NUL character', '\u0000'],
      ['bell and ANSI escapes', '\u0007\u001b[31mred\u001b[0m'],
      ['CR, LF and TAB', 'a\r\nb\tc'],
      ['NEL and line separators', '\u0085\u2028\u2029'],
      ['fullwidth letters', 'ＡＢＣ＠ｅｘａｍｐｌｅ．ｃｏｍ'],
      ['a 6-digit lookalike', '１２３４５６'],
    ];
    const rows: Array<[string, Endpoint, string, string]> = [];
    for (const endpoint of BODY_ENDPOINTS) {
      for (const [field, kind] of Object.entries(endpoint.fields!)) {
        if (kind !== 'string') continue;
        for (const [name, value] of strings)
          rows.push([`${endpoint.name}: ${field} with ${name}`, endpoint, field, value]);
      }
    }
    for (const [name, value] of strings)
      rows.push([`${SET_ROLES.name}: a role with ${name}`, SET_ROLES, 'roles', value]);

    it.each(rows)('%s → 2xx or 4xx, never 5xx', async (_label, endpoint, field, value) => {
      const body = { ...endpoint.valid!(), [field]: field === 'roles' ? [value] : value };
      const response = await hit(endpoint, 'overseer', (test) => test.send(body));
      expect(response.status).toBeLessThan(500);
      expectHandled(response);
    });

    const nulRows: Array<[string, Endpoint, string]> = [];
    for (const endpoint of BODY_ENDPOINTS) {
      for (const field of Object.keys(endpoint.fields!))
        nulRows.push([`${endpoint.name}: NUL in ${field}`, endpoint, field]);
    }

    it.each(nulRows)('%s → 400 NUL characters are not allowed', async (_label, endpoint, field) => {
      const value =
        endpoint.fields![field] === 'roles'
          ? ['Us\u0000er']
          : endpoint.fields![field] === 'boolean'
            ? { note: '\u0000' }
            : 'a\u0000b';
      const response = await hit(endpoint, 'overseer', (test) =>
        test.send({ ...endpoint.valid!(), [field]: value }),
      );
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'NUL characters are not allowed' });
    });

    it.each(strings)('GET /api/admin/users?search= %s → 2xx or 4xx, never 5xx', async (_name, value) => {
      const response = await hit(LIST_USERS, 'overseer', (test) => test.query({ search: value }));
      expect(response.status).toBeLessThan(500);
      expectHandled(response);
    });

    it.each(strings.filter(([name]) => name !== 'a lone surrogate'))(
      'a session cookie carrying %s is just no session',
      async (_name, value) => {
        const cookie = `solar.sid=${encodeURIComponent(value)}`;
        const response = await http.get('/api/auth/me').set('Cookie', cookie);
        expect(response.status).toBe(401);
        expect(response.body).toEqual(AUTH_REQUIRED);
      },
    );
  });

  describe('query parameters of GET /api/admin/users', () => {
    const queries: Array<[string, number | 'refused' | undefined]> = [
      ['page=abc', 400],
      ['pageSize=abc', 400],
      ['page=1.5', 400],
      ['pageSize=1e3', 400],
      ['page=NaN', 400],
      ['page=Infinity', 400],
      ['page=99999999999', 400],
      ['pageSize=99999999999999999999999', 400],
      ['page=1&page=2', 400],
      ['pageSize=1&pageSize=2', 400],
      ['search=a&search=b', 400],
      ['search[a]=1', 400],
      ['search[]=1', 400],
      ['unknown=1', 400],
      ['__proto__=1', 'refused'],
      ['constructor[prototype][polluted]=1', 400],
      ['pageSize=-1', 200],
      ['page=-1', 200],
      ['page=&pageSize=', 200],
      ['search=', 200],
      ['search=%25', 200],
      ['search=%5C', 200],
      ['search=%00', 'refused'],
      ['search=%E0%A4%A', undefined],
      ['page=%00', 'refused'],
    ];

    it.each(
      CALLERS.flatMap((caller) =>
        queries.map(([query, status]): [string, Caller, string, number | 'refused' | undefined] => [
          `${query} as ${caller}`,
          caller,
          query,
          status,
        ]),
      ),
    )('%s', async (_label, caller, query, status) => {
      const response = await hit(LIST_USERS, caller, (test) => test, `/api/admin/users?${query}`);
      // Hostile query strings are refused before anything else runs, session or not.
      if (status === 'refused') {
        expect(response.status).toBe(400);
        expect(Object.keys(response.body)).toEqual(['message']);
        return;
      }
      if (caller === 'anonymous') {
        expect(response.status).toBe(401);
        expect(response.body).toEqual(AUTH_REQUIRED);
        return;
      }
      if (status !== undefined) expect(response.status).toBe(status);
      if (status === 400) expect(Object.keys(response.body)).toEqual(['errors']);
      expectHandled(response);
    });
  });

  describe('path parameters', () => {
    const ids: Array<[string, string, { anonymous: number; overseer: number }]> = [
      ['not-a-uuid', 'not-a-uuid', { anonymous: 401, overseer: 400 }],
      [
        '../../etc/passwd, URL-encoded',
        encodeURIComponent('../../etc/passwd'),
        { anonymous: 401, overseer: 400 },
      ],
      [
        '..%2F..%2F with a double encoding',
        encodeURIComponent(encodeURIComponent('../../etc/passwd')),
        { anonymous: 401, overseer: 400 },
      ],
      ['1000 characters', 'a'.repeat(1000), { anonymous: 401, overseer: 400 }],
      [
        'a 1000-character UUID lookalike',
        `${UNKNOWN_ID}${'0'.repeat(964)}`,
        { anonymous: 401, overseer: 400 },
      ],
      ['a NUL byte', '%00', { anonymous: 401, overseer: 400 }],
      ['a UUID followed by NUL', `${UNKNOWN_ID}%00`, { anonymous: 401, overseer: 400 }],
      ['SQL', encodeURIComponent("1' OR '1'='1"), { anonymous: 401, overseer: 400 }],
      ['an emoji', encodeURIComponent('😀'), { anonymous: 401, overseer: 400 }],
      ['an undecodable escape', '%E0%A4%A', { anonymous: 400, overseer: 400 }],
      ['a lone percent sign', '%', { anonymous: 400, overseer: 400 }],
      ['the nil UUID', '00000000-0000-0000-0000-000000000000', { anonymous: 401, overseer: 404 }],
      ['an upper-case unknown UUID', UNKNOWN_ID.toUpperCase(), { anonymous: 401, overseer: 404 }],
    ];
    const routes: Array<[string, Endpoint, (id: string) => string, (test: request.Test) => request.Test]> = [
      [
        'PUT roles',
        SET_ROLES,
        (id) => `/api/admin/users/${id}/roles`,
        (test) => test.send({ roles: ['User'] }),
      ],
      ['DELETE', DELETE_USER, (id) => `/api/admin/users/${id}`, (test) => test],
    ];
    const rows = routes.flatMap(([route, endpoint, path, build]) =>
      CALLERS.flatMap((caller) =>
        ids.map(
          ([name, id, expected]): [
            string,
            Endpoint,
            Caller,
            string,
            (test: request.Test) => request.Test,
            number,
          ] => [`${route} with ${name} as ${caller}`, endpoint, caller, path(id), build, expected[caller]],
        ),
      ),
    );

    it.each(rows)(
      '%s → 400, 401 or 404 with { message }',
      async (_label, endpoint, caller, path, build, status) => {
        const response = await hit(endpoint, caller, build, path);
        expect(response.status).toBe(status);
        expect(response.body).toEqual({ message: expect.any(String) });
      },
    );

    it.each(
      routes.flatMap(([route, endpoint, , build]) =>
        CALLERS.map((caller): [string, Endpoint, Caller, (test: request.Test) => request.Test] => [
          `${route} as ${caller}`,
          endpoint,
          caller,
          build,
        ]),
      ),
    )('%s with an unencoded ../../etc/passwd → 404 { message }', async (_label, endpoint, caller, build) => {
      const path =
        endpoint === SET_ROLES
          ? '/api/admin/users/../../etc/passwd/roles'
          : '/api/admin/users/../../etc/passwd';
      const response = await hit(endpoint, caller, build, path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    });
  });

  describe('deeply nested bodies', () => {
    const depths = [100, 5_000];
    const rows = BODY_ENDPOINTS.flatMap((endpoint) =>
      depths.map((depth): [string, Endpoint, number] => [
        `${endpoint.name}: a field nested ${depth} arrays deep`,
        endpoint,
        depth,
      ]),
    );

    it.each(rows)('%s → 400', async (_label, endpoint, depth) => {
      const field = Object.keys(endpoint.fields!)[0];
      const valid = rawJson({ ...endpoint.valid!(), [field]: 0 });
      const text = valid.replace(`"${field}":0`, `"${field}":${'['.repeat(depth)}${']'.repeat(depth)}`);
      expect(text.length).toBeGreaterThan(2 * depth);
      const response = await hit(endpoint, 'overseer', json(text));
      expect(response.status).toBe(400);
      expectHandled(response);
    });
  });

  describe('random JSON documents', () => {
    // Fixed, so CI is repeatable; set FUZZ_SEED to explore other documents.
    const SEED = Number(process.env.FUZZ_SEED ?? 1_764_000_000);
    const DOCUMENTS = 300;
    const BATCH = 10;
    const ALIASES = [
      'Email',
      'EMAIL',
      'e-mail',
      'mail',
      'Password',
      'PASSWORD',
      'pass',
      'pwd',
      'first_name',
      'FirstName',
      'firstname',
      'last_name',
      'LastName',
      'remember',
      'remember_me',
      'RememberMe',
      'Roles',
      'role',
      'roles[]',
      'Code',
      'code ',
      'otp',
      'id',
      'userId',
      'isAdmin',
      'admin',
      'emailVerified',
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__proto',
      '',
      ' ',
      '0',
      '$where',
      'a.b',
      '😀',
      'email\u0000',
    ];

    function generator(seed: number) {
      const random = seededRandom(seed);
      const int = (below: number) => Math.floor(random() * below);
      const pick = <T>(items: readonly T[]): T => items[int(items.length)];
      const alphabet = [
        'abcdefghijklmnopqrstuvwxyz',
        'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
        '@.-_+%\\/"\' {}[]:,',
        'éüßøΩ漢字😀\u202E\u200B',
        '\u0000\u0001\u0007\u001b\r\n\t\u2028',
        'ab\uD800\uDC00\uDFFF',
      ];
      const string = (): string => {
        const length = random() < 0.05 ? 1000 + int(49_000) : int(40);
        const chars = pick(alphabet);
        const sample = Array.from(chars);
        let text = '';
        for (let index = 0; index < Math.min(length, 200); index++) text += pick(sample);
        return length > 200
          ? text.repeat(Math.ceil(length / Math.max(text.length, 1))).slice(0, length)
          : text;
      };
      const scalar = (): unknown =>
        pick([
          () => string(),
          () => pick(['someone@example.com', PASSWORD, '123456', 'User', 'Admin', 'Overseer', 'true', '']),
          () => int(2_000_000) - 1_000_000,
          () => pick([0, -0, 1, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53]),
          () => random() < 0.5,
          () => null,
        ])();
      const value = (depth: number): unknown => {
        if (depth >= 5 || random() < 0.6) return scalar();
        if (random() < 0.5) return Array.from({ length: int(6) }, () => value(depth + 1));
        return object(depth + 1, []);
      };
      const object = (depth: number, fields: string[]): Record<string, unknown> => {
        const result = Object.create(null) as Record<string, unknown>;
        const count = int(7);
        for (let index = 0; index < count; index++) {
          const key =
            random() < 0.4 && fields.length > 0
              ? pick(fields)
              : random() < 0.7
                ? pick(ALIASES)
                : string().slice(0, 20);
          result[key] = value(depth);
        }
        return result;
      };
      /** Either a mutation of a valid body (so validation is passed now and then) or a fresh document. */
      return (endpoint: Endpoint): string => {
        const fields = Object.keys(endpoint.fields!);
        let document: unknown;
        if (random() < 0.3) {
          const body = Object.assign(Object.create(null), endpoint.valid!()) as Record<string, unknown>;
          const changes = 1 + int(2);
          for (let change = 0; change < changes; change++) {
            const key = random() < 0.8 ? pick(fields) : pick(ALIASES);
            if (random() < 0.15) delete body[key];
            else body[key] = random() < 0.5 ? scalar() : value(1);
          }
          document = body;
        } else {
          document = random() < 0.1 ? value(0) : object(0, fields);
        }
        const text = JSON.stringify(document) ?? 'null';
        return text.length > 60_000 ? text.slice(0, 60_000) : text;
      };
    }

    it.each(
      BODY_ENDPOINTS.map((endpoint, index): [string, number, Endpoint] => [
        endpoint.name,
        SEED + index,
        endpoint,
      ]),
    )(
      `%s: ${DOCUMENTS} documents from seed %i (replay with FUZZ_SEED=${SEED}) → never 5xx, always JSON`,
      async (_name, seed, endpoint) => {
        const next = generator(seed);
        const documents = Array.from({ length: DOCUMENTS }, () => next(endpoint));
        const failures: Array<{ index: number; status: number; body: string; document: string }> = [];
        let answered = 0;
        for (let start = 0; start < documents.length; start += BATCH) {
          const batch = documents.slice(start, start + BATCH);
          const responses = await Promise.all(batch.map((text) => hit(endpoint, 'overseer', json(text))));
          responses.forEach((response, offset) => {
            answered += 1;
            const isJson =
              /^application\/json/.test(response.headers['content-type'] ?? '') &&
              typeof response.body === 'object';
            if (response.status >= 500 || !isJson) {
              failures.push({
                index: start + offset,
                status: response.status,
                body: response.text.slice(0, 200),
                document: batch[offset].slice(0, 300),
              });
            }
          });
        }
        expect(answered).toBe(DOCUMENTS);
        expect(failures).toEqual([]);
      },
    );
  });

  it('still answers normally after all of the above', async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await http.get('/api/health').expect(200);
    const me = await http.get('/api/auth/me').set('Cookie', overseerCookie).expect(200);
    expect(me.body.user.email).toBe(ADMIN_EMAIL);
    await http.get('/api/admin/stats').set('Cookie', overseerCookie).expect(200);
  });
});
