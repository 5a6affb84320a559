import { INestApplication } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestEnvironment, Http, logIn, signUp, TestEnvironment } from '@solar/testing';
import { startApi } from './support/api-harness';

const ADMIN_EMAIL = 'root@example.com';
const ADMIN_PASSWORD = 'Root-Pass-123';

const DTO_KEYS = [
  'id',
  'name',
  'description',
  'iconUrl',
  'powerGroupId',
  'powerGroupName',
  'connectionType',
  'latitude',
  'longitude',
  'isActive',
  'createdAt',
  'updatedAt',
  'installedCapacityWatts',
  'currency',
  'systemCost',
  'maintenanceCostPerYear',
  'installationDate',
  'connectionDetails',
].sort();

const MQTT_KEY = /^ak_[0-9a-f]{64}$/;
const WEBHOOK_SECRET = /^wh_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOT_FOUND = { message: 'Sun source not found' };
const AUTH_REQUIRED = { message: 'Authentication required' };
const NOT_MQTT = { message: 'Sun source is not connected through MQTT' };
const NOT_WEBHOOK = { message: 'Sun source is not connected through Webhook' };
const MQTT = { name: 'Roof array', connectionType: 'MQTT' };
const WEBHOOK = { name: 'Garage inverter', connectionType: 'Webhook' };

type Body = Record<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sun sources', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;
  let owner: { id: string; cookie: string; email: string };
  let other: { id: string; cookie: string; email: string };

  beforeAll(async () => {
    env = await createTestEnvironment({ ADMIN_EMAIL, ADMIN_PASSWORD });
    ({ app, http } = await startApi(env.config));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [owner, other] = [await signUp(http, env.mail), await signUp(http, env.mail)];
  });

  afterAll(async () => {
    await db?.end();
    await app?.close();
    await env?.teardown();
  });

  function create(body: Body, cookie = owner.cookie) {
    return http.post('/api/sunsources').set('Cookie', cookie).send(body);
  }

  async function created(body: Body, cookie = owner.cookie): Promise<Body & { id: string }> {
    return (await create(body, cookie).expect(201)).body;
  }

  function get(id: string, query = '', cookie = owner.cookie) {
    return http.get(`/api/sunsources/${id}${query}`).set('Cookie', cookie);
  }

  function put(id: string, body: Body, cookie = owner.cookie) {
    return http.put(`/api/sunsources/${id}`).set('Cookie', cookie).send(body);
  }

  async function sourceCount(userId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sun_sources WHERE user_id = $1',
      [userId],
    );
    return rows[0].n;
  }

  async function prices(sourceId: string): Promise<Array<{ price_per_kwh: string; effective_from: Date }>> {
    const { rows } = await db.query<{ price_per_kwh: string; effective_from: Date }>(
      'SELECT price_per_kwh, effective_from FROM kwh_prices WHERE sun_source_id = $1',
      [sourceId],
    );
    return rows;
  }

  async function createGroup(name: string, cookie = owner.cookie): Promise<string> {
    const response = await http.post('/api/powergroups').set('Cookie', cookie).send({ name }).expect(201);
    expect(response.body.id).toEqual(expect.any(String));
    return response.body.id;
  }

  describe('authentication', () => {
    const id = randomUUID();
    it.each([
      ['GET', '/api/sunsources'],
      ['GET', `/api/sunsources/${id}`],
      ['POST', '/api/sunsources'],
      ['PUT', `/api/sunsources/${id}`],
      ['DELETE', `/api/sunsources/${id}`],
      ['GET', `/api/sunsources/${id}/webhook-url`],
      ['POST', `/api/sunsources/${id}/rotate-secret`],
      ['POST', `/api/sunsources/${id}/regenerate-mqtt-key`],
    ])('%s %s answers 401 without a session', async (method, path) => {
      const response = await http[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](path)
        .send(method === 'POST' || method === 'PUT' ? MQTT : undefined)
        .expect(401);
      expect(response.body).toEqual(AUTH_REQUIRED);
    });

    it('creates nothing without a session', async () => {
      const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sun_sources');
      await http.post('/api/sunsources').send(MQTT).expect(401);
      const after = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sun_sources');
      expect(after.rows[0].n).toBe(before.rows[0].n);
    });
  });

  describe('POST /api/sunsources', () => {
    it('creates an MQTT source: 201, Location, the full DTO with defaults and its MQTT credentials', async () => {
      const started = Date.now();
      const response = await create(MQTT).expect(201);
      const body = response.body;
      expect(Object.keys(body).sort()).toEqual(DTO_KEYS);
      expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(response.headers.location).toBe(`${env.config.publicBaseUrl}/api/sunsources/${body.id}`);
      expect(body).toEqual({
        id: body.id,
        name: 'Roof array',
        description: null,
        iconUrl: null,
        powerGroupId: null,
        powerGroupName: null,
        connectionType: 'MQTT',
        latitude: null,
        longitude: null,
        isActive: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        installedCapacityWatts: null,
        currency: 'EUR',
        systemCost: null,
        maintenanceCostPerYear: null,
        installationDate: null,
        connectionDetails: {
          mqttBrokerHost: env.config.mqtt.publicHost,
          mqttBrokerPort: env.config.mqtt.publicPort,
          mqttClientId: `src-${body.id}`,
          mqttApiKey: expect.stringMatching(MQTT_KEY),
          mqttTopic: `${env.config.mqtt.topicPrefix}/sources/${body.id}/data`,
          webhookUrl: null,
          webhookSecret: null,
        },
      });
      expect(Math.abs(Date.parse(body.createdAt) - started)).toBeLessThan(60_000);
      expect(body.updatedAt).toBe(body.createdAt);
    });

    it('creates a Webhook source with its URL and a generated secret, MQTT fields null', async () => {
      const response = await create(WEBHOOK).expect(201);
      const body = response.body;
      expect(Object.keys(body).sort()).toEqual(DTO_KEYS);
      expect(response.headers.location).toBe(`${env.config.publicBaseUrl}/api/sunsources/${body.id}`);
      expect(body.connectionType).toBe('Webhook');
      expect(body.connectionDetails).toEqual({
        mqttBrokerHost: null,
        mqttBrokerPort: null,
        mqttClientId: null,
        mqttApiKey: null,
        mqttTopic: null,
        webhookUrl: `${env.config.publicBaseUrl}/api/webhook/sunsource/${body.id}`,
        webhookSecret: expect.stringMatching(WEBHOOK_SECRET),
      });
    });

    it('issues different credentials to every source', async () => {
      const [a, b, c, d] = await Promise.all([
        created(MQTT),
        created(MQTT),
        created(WEBHOOK),
        created(WEBHOOK),
      ]);
      expect(a.id).not.toBe(b.id);
      expect((a.connectionDetails as Body).mqttApiKey).not.toBe((b.connectionDetails as Body).mqttApiKey);
      expect((c.connectionDetails as Body).webhookSecret).not.toBe(
        (d.connectionDetails as Body).webhookSecret,
      );
    });

    it.each([
      ['16 characters', 'a'.repeat(16)],
      ['256 characters', 'S'.repeat(256)],
      ['a passphrase', 'my device shared secret!'],
    ])('keeps a supplied webhookSecret of %s', async (_case, webhookSecret) => {
      const body = await created({ ...WEBHOOK, webhookSecret });
      expect((body.connectionDetails as Body).webhookSecret).toBe(webhookSecret);
      const read = await get(body.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body.connectionDetails.webhookSecret).toBe(webhookSecret);
    });

    it.each([
      ['15 characters', 'a'.repeat(15)],
      ['257 characters', 'a'.repeat(257)],
      ['not a string', 1234567890123456789],
    ])('rejects a webhookSecret of %s', async (_case, webhookSecret) => {
      const before = await sourceCount(owner.id);
      const response = await create({ ...WEBHOOK, webhookSecret }).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors.webhookSecret).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(await sourceCount(owner.id)).toBe(before);
    });

    it('stores every optional field it is given', async () => {
      const groupId = await createGroup('South roofs');
      const body = await created({
        name: 'Barn',
        description: 'Twelve panels on the barn',
        iconUrl: 'https://cdn.example.com/icons/barn.png',
        powerGroupId: groupId,
        connectionType: 'Webhook',
        latitude: 48.1372,
        longitude: 11.5756,
        installedCapacityWatts: 4800.5,
        currency: 'USD',
        systemCost: 12000.5,
        maintenanceCostPerYear: 150.25,
        installationDate: '2024-05-01T10:00:00Z',
      });
      const expected = {
        id: body.id,
        name: 'Barn',
        description: 'Twelve panels on the barn',
        iconUrl: 'https://cdn.example.com/icons/barn.png',
        powerGroupId: groupId,
        powerGroupName: 'South roofs',
        connectionType: 'Webhook',
        latitude: 48.1372,
        longitude: 11.5756,
        isActive: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        installedCapacityWatts: 4800.5,
        currency: 'USD',
        systemCost: 12000.5,
        maintenanceCostPerYear: 150.25,
        installationDate: '2024-05-01T10:00:00.000Z',
      };
      expect(body).toEqual({ ...expected, connectionDetails: expect.any(Object) });
      expect((await get(body.id).expect(200)).body).toEqual({ ...expected, connectionDetails: null });
    });

    it.each([
      [-90, -180, -90, -180],
      [90, 180, 90, 180],
      [0, 0, 0, 0],
      [-90.0001, 12.5, null, 12.5],
      [90.5, -180.0001, null, null],
      [45.5, 180.1, 45.5, null],
      [-91, 200, null, null],
    ])('stores latitude %p / longitude %p as %p / %p', async (latitude, longitude, storedLat, storedLon) => {
      const body = await created({ ...MQTT, latitude, longitude });
      expect([body.latitude, body.longitude]).toEqual([storedLat, storedLon]);
      const read = await get(body.id).expect(200);
      expect([read.body.latitude, read.body.longitude]).toEqual([storedLat, storedLon]);
    });

    it.each([
      ['latitude', { latitude: '45.5' }],
      ['longitude', { longitude: '9.1' }],
      ['installedCapacityWatts', { installedCapacityWatts: '5000' }],
      ['systemCost', { systemCost: '100' }],
      ['initialKwhPrice', { initialKwhPrice: '0.3' }],
    ])('rejects a string for the number %s', async (field, override) => {
      const response = await create({ ...MQTT, ...override }).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(Object.keys(response.body.errors)).toEqual([field]);
      expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    });

    describe('initialKwhPrice', () => {
      it.each([[0.25], [0.123456], [3]])('%p creates one price effective now', async (initialKwhPrice) => {
        const body = await created({ ...MQTT, initialKwhPrice });
        const rows = await prices(body.id);
        expect(rows).toHaveLength(1);
        expect(Number(rows[0].price_per_kwh)).toBe(initialKwhPrice);
        expect(Math.abs(rows[0].effective_from.getTime() - Date.now())).toBeLessThan(60_000);
      });

      it.each([
        ['0', { initialKwhPrice: 0 }],
        ['a negative price', { initialKwhPrice: -0.2 }],
        ['null', { initialKwhPrice: null }],
        ['no price', {}],
      ])('%s creates no price', async (_case, override) => {
        const body = await created({ ...WEBHOOK, ...override });
        expect(await prices(body.id)).toEqual([]);
      });
    });

    describe('validation', () => {
      it.each([
        ['name missing', { name: undefined }, 'name'],
        ['name blank', { name: '   ' }, 'name'],
        ['name empty', { name: '' }, 'name'],
        ['name of 201 characters', { name: 'n'.repeat(201) }, 'name'],
        ['name not a string', { name: 42 }, 'name'],
        ['connectionType missing', { connectionType: undefined }, 'connectionType'],
        ['connectionType Zigbee', { connectionType: 'Zigbee' }, 'connectionType'],
        ['connectionType in lower case', { connectionType: 'mqtt' }, 'connectionType'],
        ['description of 2001 characters', { description: 'd'.repeat(2001) }, 'description'],
        ['iconUrl ftp', { iconUrl: 'ftp://x' }, 'iconUrl'],
        ['iconUrl javascript:', { iconUrl: 'javascript:alert(1)' }, 'iconUrl'],
        ['iconUrl without protocol', { iconUrl: 'example.com/icon.png' }, 'iconUrl'],
        ['iconUrl of 501 characters', { iconUrl: `https://example.com/${'a'.repeat(481)}` }, 'iconUrl'],
        ['powerGroupId not a UUID', { powerGroupId: 'group-1' }, 'powerGroupId'],
        ['currency EURO', { currency: 'EURO' }, 'currency'],
        ['currency XXY', { currency: 'XXY' }, 'currency'],
        ['currency empty', { currency: '' }, 'currency'],
        ['installedCapacityWatts -1', { installedCapacityWatts: -1 }, 'installedCapacityWatts'],
        ['systemCost -0.01', { systemCost: -0.01 }, 'systemCost'],
        ['systemCost with 3 decimals', { systemCost: 1.234 }, 'systemCost'],
        ['initialKwhPrice that rounds to 0 at 6 decimals', { initialKwhPrice: 1e-13 }, 'initialKwhPrice'],
        ['maintenanceCostPerYear -1', { maintenanceCostPerYear: -1 }, 'maintenanceCostPerYear'],
        [
          'maintenanceCostPerYear with 3 decimals',
          { maintenanceCostPerYear: 0.001 },
          'maintenanceCostPerYear',
        ],
        ['installationDate yesterday', { installationDate: 'yesterday' }, 'installationDate'],
        ['installationDate 2024-13-01', { installationDate: '2024-13-01' }, 'installationDate'],
        ['installationDate a number', { installationDate: 1714557600000 }, 'installationDate'],
        ['unknown property owner', { owner: randomUUID() }, 'owner'],
        ['isActive on create', { isActive: false }, 'isActive'],
      ])('rejects %s with errors.<field> and creates nothing', async (_case, override, field) => {
        const before = await sourceCount(owner.id);
        const response = await create({ ...MQTT, ...override }).expect(400);
        expect(Object.keys(response.body)).toEqual(['errors']);
        expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
        expect(await sourceCount(owner.id)).toBe(before);
      });

      it('names the unknown property in its message', async () => {
        const response = await create({ ...MQTT, owner: other.id }).expect(400);
        expect(response.body).toEqual({ errors: { owner: ['property owner should not exist'] } });
      });

      it.each([
        ['name of 200 characters', { name: 'n'.repeat(200) }, 'name', 'n'.repeat(200)],
        ['name of 1 character', { name: 'n' }, 'name', 'n'],
        [
          'description of 2000 characters',
          { description: 'd'.repeat(2000) },
          'description',
          'd'.repeat(2000),
        ],
        [
          'http iconUrl',
          { iconUrl: 'http://localhost:3000/i.png' },
          'iconUrl',
          'http://localhost:3000/i.png',
        ],
        [
          'iconUrl of 500 characters',
          { iconUrl: `https://example.com/${'a'.repeat(480)}` },
          'iconUrl',
          `https://example.com/${'a'.repeat(480)}`,
        ],
        ['currency USD', { currency: 'USD' }, 'currency', 'USD'],
        ['currency null (the default)', { currency: null }, 'currency', 'EUR'],
        ['installedCapacityWatts 0', { installedCapacityWatts: 0 }, 'installedCapacityWatts', 0],
        ['systemCost 0', { systemCost: 0 }, 'systemCost', 0],
        ['systemCost 12000.5', { systemCost: 12000.5 }, 'systemCost', 12000.5],
        ['systemCost 0.01', { systemCost: 0.01 }, 'systemCost', 0.01],
        ['maintenanceCostPerYear 99.99', { maintenanceCostPerYear: 99.99 }, 'maintenanceCostPerYear', 99.99],
        [
          'installationDate as a date',
          { installationDate: '2024-05-01' },
          'installationDate',
          '2024-05-01T00:00:00.000Z',
        ],
        [
          'installationDate as a date-time',
          { installationDate: '2024-05-01T10:00:00Z' },
          'installationDate',
          '2024-05-01T10:00:00.000Z',
        ],
        [
          'installationDate with an offset',
          { installationDate: '2024-05-01T12:00:00+02:00' },
          'installationDate',
          '2024-05-01T10:00:00.000Z',
        ],
      ])('accepts %s', async (_case, override, field, stored) => {
        const body = await created({ ...MQTT, ...override });
        expect(body[field]).toEqual(stored);
        const read = await get(body.id).expect(200);
        expect(read.body[field]).toEqual(stored);
      });
    });

    describe('powerGroupId', () => {
      it.each([
        ["another user's group", async () => createGroup('Not yours', other.cookie)],
        ['a random UUID', async () => Promise.resolve(randomUUID())],
      ])('rejects %s with "Power group not found" and creates nothing', async (_case, groupOf) => {
        const powerGroupId = await groupOf();
        const before = (await http.get('/api/sunsources').set('Cookie', owner.cookie).expect(200)).body;
        const response = await create({ ...MQTT, powerGroupId }).expect(400);
        expect(response.body).toEqual({ message: 'Power group not found' });
        const after = (await http.get('/api/sunsources').set('Cookie', owner.cookie).expect(200)).body;
        expect(after).toEqual(before);
      });

      it("puts the source in the caller's own group and names it", async () => {
        const powerGroupId = await createGroup('East wing');
        const body = await created({ ...MQTT, powerGroupId });
        expect(body).toMatchObject({ powerGroupId, powerGroupName: 'East wing' });
        expect((await get(body.id).expect(200)).body).toMatchObject({
          powerGroupId,
          powerGroupName: 'East wing',
        });
      });

      it('accepts null as no group', async () => {
        const body = await created({ ...MQTT, powerGroupId: null });
        expect(body).toMatchObject({ powerGroupId: null, powerGroupName: null });
      });
    });
  });

  /**
   * Inputs that pass the DTO but that the table cannot hold: each must end as a validation
   * error or be stored intact, never as a 500 from PostgreSQL.
   */
  describe('inputs at the limits of the columns', () => {
    /** 201 with `stored(id)` true, or 400 `errors.<field>` with nothing created. */
    async function storedOrRejected(
      response: Awaited<ReturnType<typeof create>>,
      field: string,
      before: number,
      stored: (id: string) => Promise<void>,
    ): Promise<void> {
      expect([201, 400]).toContain(response.status);
      if (response.status === 201) {
        await stored(response.body.id);
      } else {
        expect(Object.keys(response.body)).toEqual(['errors']);
        expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
        expect(await sourceCount(owner.id)).toBe(before);
      }
    }

    it.each([
      ['name', { name: 'Roof\u0000array' }],
      ['description', { description: 'line one\u0000line two' }],
    ])('rejects a NUL character in %s on create', async (_field, override) => {
      const before = await sourceCount(owner.id);
      const response = await create({ ...MQTT, ...override });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'NUL characters are not allowed' });
      expect(await sourceCount(owner.id)).toBe(before);
    });

    it.each([
      ['name', { name: 'Roof\u0000array' }],
      ['description', { description: 'line one\u0000line two' }],
    ])('rejects a NUL character in %s on update', async (_field, change) => {
      const source = await created(MQTT);
      const response = await put(source.id, change);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'NUL characters are not allowed' });
      expect((await get(source.id, '?includeConnectionDetails=true').expect(200)).body).toEqual(source);
    });

    // U+2764 U+FE0F: the validator counts one character, PostgreSQL's varchar two.
    const heart = '\u2764\uFE0F';
    it.each([
      ['name', 101, heart.repeat(101)],
      ['name', 200, heart.repeat(200)],
      ['description', 1001, heart.repeat(1001)],
      ['iconUrl', 261, `https://example.com/${heart.repeat(241)}`],
    ])(
      'stores a %s counted as %i characters with emoji selectors intact or rejects it',
      async (field, _count, value) => {
        const before = await sourceCount(owner.id);
        const response = await create({ ...MQTT, [field]: value });
        await storedOrRejected(response, field, before, async (id) => {
          expect((await get(id).expect(200)).body[field]).toBe(value);
        });
      },
    );

    it.each([[1_000_000], [999_999.9999999], [0.0000001]])(
      'stores initialKwhPrice %p as one positive price or rejects it',
      async (initialKwhPrice) => {
        const before = await sourceCount(owner.id);
        const response = await create({ ...MQTT, initialKwhPrice });
        await storedOrRejected(response, 'initialKwhPrice', before, async (id) => {
          const rows = await prices(id);
          expect(rows).toHaveLength(1);
          expect(Number(rows[0].price_per_kwh)).toBeGreaterThan(0);
          expect(Number(rows[0].price_per_kwh)).toBeCloseTo(initialKwhPrice, 5);
        });
      },
    );

    it('rejects initialKwhPrice above 1,000,000 and a raw 1e400', async () => {
      const over = await create({ ...MQTT, initialKwhPrice: 1_000_001 }).expect(400);
      expect(over.body.errors.initialKwhPrice).toEqual(expect.arrayContaining([expect.any(String)]));
      const infinite = await http
        .post('/api/sunsources')
        .set('Cookie', owner.cookie)
        .set('Content-Type', 'application/json')
        .send('{"name":"x","connectionType":"MQTT","latitude":1e400}')
        .expect(400);
      expect(Object.keys(infinite.body.errors)).toEqual(['latitude']);
    });

    it('stores a lower-case currency as its ISO 4217 code, or rejects it, on create', async () => {
      const before = await sourceCount(owner.id);
      const response = await create({ ...MQTT, currency: 'usd' });
      await storedOrRejected(response, 'currency', before, async (id) => {
        expect(response.body.currency).toBe('USD');
        expect((await get(id).expect(200)).body.currency).toBe('USD');
      });
    });

    it('stores a lower-case currency as its ISO 4217 code, or rejects it, on update', async () => {
      const source = await created({ ...MQTT, currency: 'CHF' });
      const response = await put(source.id, { currency: 'usd' });
      expect([200, 400]).toContain(response.status);
      const expected = response.status === 200 ? 'USD' : 'CHF';
      if (response.status === 400) {
        expect(response.body.errors.currency).toEqual(expect.arrayContaining([expect.any(String)]));
      } else {
        expect(response.body.currency).toBe('USD');
      }
      expect((await get(source.id).expect(200)).body.currency).toBe(expected);
    });
  });

  describe('GET /api/sunsources', () => {
    let lister: { id: string; cookie: string };
    let ids: string[];
    let groupId: string;

    beforeAll(async () => {
      lister = await signUp(http, env.mail);
      groupId = await createGroup('Lister group', lister.cookie);
      ids = [];
      ids.push((await created({ name: 'first', connectionType: 'MQTT' }, lister.cookie)).id);
      ids.push(
        (await created({ name: 'second', connectionType: 'Webhook', powerGroupId: groupId }, lister.cookie))
          .id,
      );
      ids.push(
        (await created({ name: 'third', connectionType: 'MQTT', powerGroupId: groupId }, lister.cookie)).id,
      );
    });

    it('lists only the caller’s sources, oldest first, without connection details', async () => {
      const response = await http.get('/api/sunsources').set('Cookie', lister.cookie).expect(200);
      expect(response.body.map((source: Body) => source.id)).toEqual(ids);
      expect(response.body.map((source: Body) => source.name)).toEqual(['first', 'second', 'third']);
      for (const source of response.body as Body[]) {
        expect(Object.keys(source).sort()).toEqual(DTO_KEYS);
        expect(source.connectionDetails).toBeNull();
      }
      const createdAt = response.body.map((source: Body) => Date.parse(source.createdAt as string));
      expect([...createdAt].sort((a, b) => a - b)).toEqual(createdAt);
    });

    it('lists the owner’s many sources, none of them another user’s', async () => {
      const response = await http.get('/api/sunsources').set('Cookie', owner.cookie).expect(200);
      const { rows } = await db.query<{ id: string }>(
        'SELECT id FROM sun_sources WHERE user_id = $1 ORDER BY created_at, id',
        [owner.id],
      );
      expect(rows.length).toBeGreaterThan(3);
      expect(response.body.map((source: Body) => source.id)).toEqual(rows.map((row) => row.id));
      expect(response.body.every((source: Body) => source.connectionDetails === null)).toBe(true);
      expect(response.body.map((source: Body) => source.id)).not.toContain(ids[0]);
    });

    it('filters by powerGroupId', async () => {
      const response = await http
        .get(`/api/sunsources?powerGroupId=${groupId}`)
        .set('Cookie', lister.cookie)
        .expect(200);
      expect(response.body.map((source: Body) => source.id)).toEqual([ids[1], ids[2]]);
      expect(response.body.every((source: Body) => source.powerGroupName === 'Lister group')).toBe(true);
    });

    it('gives an empty list for a group that has no sources or is not the caller’s', async () => {
      const empty = await createGroup('Empty', lister.cookie);
      await http.get(`/api/sunsources?powerGroupId=${empty}`).set('Cookie', lister.cookie).expect(200, []);
      await http.get(`/api/sunsources?powerGroupId=${groupId}`).set('Cookie', owner.cookie).expect(200, []);
    });

    it.each(['not-a-uuid', '123', `${randomUUID()}x`])(
      'rejects the filter %p with 400',
      async (powerGroupId) => {
        const response = await http
          .get(`/api/sunsources?powerGroupId=${encodeURIComponent(powerGroupId)}`)
          .set('Cookie', lister.cookie)
          .expect(400);
        expect(response.body.errors.powerGroupId).toEqual(expect.arrayContaining([expect.any(String)]));
      },
    );
  });

  describe('GET /api/sunsources/{id}', () => {
    let mqtt: Body & { id: string };
    let webhook: Body & { id: string };

    beforeAll(async () => {
      mqtt = await created(MQTT);
      webhook = await created(WEBHOOK);
    });

    it.each([[''], ['?includeConnectionDetails=false']])(
      'leaves connection details out with %p',
      async (query) => {
        const response = await get(mqtt.id, query).expect(200);
        expect(response.body).toEqual({ ...mqtt, connectionDetails: null });
      },
    );

    it('includes the credentials issued at creation with includeConnectionDetails=true', async () => {
      expect((await get(mqtt.id, '?includeConnectionDetails=true').expect(200)).body).toEqual(mqtt);
      expect((await get(webhook.id, '?includeConnectionDetails=true').expect(200)).body).toEqual(webhook);
    });

    it.each(['yes', '1', 'TRUE', ''])('rejects includeConnectionDetails=%p', async (value) => {
      const response = await get(mqtt.id, `?includeConnectionDetails=${value}`).expect(400);
      expect(response.body.errors.includeConnectionDetails).toEqual(
        expect.arrayContaining([expect.any(String)]),
      );
    });

    it.each(['not-a-uuid', '12345'])('answers 400 { message } for the id %p', async (id) => {
      const response = await get(id).expect(400);
      expect(response.body).toEqual({ message: expect.any(String) });
    });

    it('answers 404 for an unknown id', async () => {
      expect((await get(randomUUID()).expect(404)).body).toEqual(NOT_FOUND);
    });
  });

  describe('the array as installed: orientation', () => {
    const SOUTH_EAST = { tilt: 45, azimuth: 158 };

    it('is stored and returned when given, and absent from sources without one', async () => {
      const body = await created({ ...MQTT, orientation: SOUTH_EAST });
      expect(Object.keys(body).sort()).toEqual([...DTO_KEYS, 'orientation'].sort());
      expect(body.orientation).toEqual(SOUTH_EAST);
      expect((await get(body.id).expect(200)).body.orientation).toEqual(SOUTH_EAST);
      const listed = (await http.get('/api/sunsources').set('Cookie', owner.cookie).expect(200)).body;
      expect(listed.find((source: Body) => source.id === body.id).orientation).toEqual(SOUTH_EAST);
      const { rows } = await db.query('SELECT array_tilt, array_azimuth FROM sun_sources WHERE id = $1', [
        body.id,
      ]);
      expect(rows).toEqual([{ array_tilt: 45, array_azimuth: 158 }]);

      const without = await created(MQTT);
      expect(Object.keys(without).sort()).toEqual(DTO_KEYS);
      expect(await created({ ...MQTT, orientation: null })).not.toHaveProperty('orientation');
    });

    it.each([
      ['flat, due north', { tilt: 0, azimuth: 0 }],
      ['vertical, north again', { tilt: 90, azimuth: 360 }],
      ['fractional degrees', { tilt: 32.5, azimuth: 181.25 }],
    ])('accepts the limits of its angles: %s', async (_case, orientation) => {
      expect((await created({ ...MQTT, orientation })).orientation).toEqual(orientation);
    });

    it.each([
      ['tilt below 0', { tilt: -0.1, azimuth: 180 }, 'orientation.tilt'],
      ['tilt above 90', { tilt: 90.1, azimuth: 180 }, 'orientation.tilt'],
      ['azimuth below 0', { tilt: 30, azimuth: -1 }, 'orientation.azimuth'],
      ['azimuth above 360', { tilt: 30, azimuth: 360.5 }, 'orientation.azimuth'],
      ['a tilt without azimuth', { tilt: 30 }, 'orientation.azimuth'],
      ['an azimuth without tilt', { azimuth: 180 }, 'orientation.tilt'],
      ['a tilt as text', { tilt: '30', azimuth: 180 }, 'orientation.tilt'],
      ['an unknown property', { tilt: 30, azimuth: 180, roll: 2 }, 'orientation.roll'],
      ['a number', 30, 'orientation'],
      ['a list', [{ tilt: 30, azimuth: 180 }], 'orientation'],
    ])('rejects %s with errors.<field>, creating and changing nothing', async (_case, orientation, field) => {
      const before = await sourceCount(owner.id);
      const response = await create({ ...MQTT, orientation }).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(await sourceCount(owner.id)).toBe(before);

      const source = await created({ ...MQTT, orientation: SOUTH_EAST });
      const refused = await put(source.id, { name: 'Renamed', orientation }).expect(400);
      expect(refused.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
      expect((await get(source.id).expect(200)).body).toMatchObject({
        name: MQTT.name,
        orientation: SOUTH_EAST,
      });
    });

    it('is set, replaced, kept when absent and cleared with null on update', async () => {
      const source = await created(MQTT);
      expect((await put(source.id, { orientation: SOUTH_EAST }).expect(200)).body.orientation).toEqual(
        SOUTH_EAST,
      );
      const west = { tilt: 20, azimuth: 270 };
      expect((await put(source.id, { orientation: west }).expect(200)).body.orientation).toEqual(west);
      expect((await put(source.id, { name: 'Kept' }).expect(200)).body.orientation).toEqual(west);
      const cleared = (await put(source.id, { orientation: null }).expect(200)).body;
      expect(Object.keys(cleared).sort()).toEqual(DTO_KEYS);
      expect(Object.keys((await get(source.id).expect(200)).body).sort()).toEqual(DTO_KEYS);
    });

    it('cannot be set on another user’s source: 404, and theirs is unchanged', async () => {
      const theirs = await created({ ...MQTT, orientation: SOUTH_EAST }, other.cookie);
      expect((await put(theirs.id, { orientation: { tilt: 10, azimuth: 90 } }).expect(404)).body).toEqual(
        NOT_FOUND,
      );
      expect((await get(theirs.id, '', other.cookie).expect(200)).body.orientation).toEqual(SOUTH_EAST);
    });
  });

  describe('PUT /api/sunsources/{id}', () => {
    it('changes every field of the update body', async () => {
      const [groupA, groupB] = [await createGroup('Group A'), await createGroup('Group B')];
      const source = await created({
        name: 'Before',
        connectionType: 'MQTT',
        description: 'old',
        iconUrl: 'https://example.com/old.png',
        powerGroupId: groupA,
        latitude: 10,
        longitude: 20,
        installedCapacityWatts: 1000,
        currency: 'EUR',
        systemCost: 100,
        maintenanceCostPerYear: 10,
        installationDate: '2023-01-01',
      });
      await sleep(20);
      const response = await put(source.id, {
        name: 'After',
        description: 'new',
        iconUrl: 'http://example.org/new.svg',
        powerGroupId: groupB,
        isActive: false,
        latitude: -33.8688,
        longitude: 151.2093,
        installedCapacityWatts: 2500.5,
        currency: 'AUD',
        systemCost: 9999.99,
        maintenanceCostPerYear: 75.5,
        installationDate: '2024-05-01T10:00:00Z',
      }).expect(200);
      const expected = {
        id: source.id,
        name: 'After',
        description: 'new',
        iconUrl: 'http://example.org/new.svg',
        powerGroupId: groupB,
        powerGroupName: 'Group B',
        connectionType: 'MQTT',
        latitude: -33.8688,
        longitude: 151.2093,
        isActive: false,
        createdAt: source.createdAt,
        updatedAt: expect.stringMatching(ISO),
        installedCapacityWatts: 2500.5,
        currency: 'AUD',
        systemCost: 9999.99,
        maintenanceCostPerYear: 75.5,
        installationDate: '2024-05-01T10:00:00.000Z',
      };
      expect(response.body).toEqual({ ...expected, connectionDetails: null });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(source.updatedAt as string));
      const read = await get(source.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body).toEqual({
        ...expected,
        updatedAt: response.body.updatedAt,
        connectionDetails: source.connectionDetails,
      });
    });

    it('sets every nullable field to null', async () => {
      const group = await createGroup('To leave');
      const source = await created({
        ...WEBHOOK,
        description: 'd',
        iconUrl: 'https://example.com/i.png',
        powerGroupId: group,
        latitude: 1,
        longitude: 2,
        installedCapacityWatts: 3,
        systemCost: 4,
        maintenanceCostPerYear: 5,
        installationDate: '2024-01-01',
      });
      const nulls = {
        description: null,
        iconUrl: null,
        powerGroupId: null,
        latitude: null,
        longitude: null,
        installedCapacityWatts: null,
        systemCost: null,
        maintenanceCostPerYear: null,
        installationDate: null,
      };
      const response = await put(source.id, nulls).expect(200);
      expect(response.body).toMatchObject({
        ...nulls,
        powerGroupName: null,
        name: source.name,
        currency: 'EUR',
      });
      expect((await get(source.id).expect(200)).body).toMatchObject({ ...nulls, powerGroupName: null });
    });

    it('leaves absent fields unchanged and moves updatedAt forward', async () => {
      const source = await created({
        ...MQTT,
        description: 'keep me',
        latitude: 50,
        longitude: 8,
        systemCost: 1234.56,
        currency: 'CHF',
        installationDate: '2022-02-02',
      });
      await sleep(20);
      const response = await put(source.id, { name: 'Renamed' }).expect(200);
      const { name: _name, updatedAt: _updatedAt, ...rest } = source;
      expect(response.body).toEqual({
        ...rest,
        name: 'Renamed',
        updatedAt: expect.stringMatching(ISO),
        connectionDetails: null,
      });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(source.updatedAt as string));
    });

    it('accepts an empty body and changes nothing', async () => {
      const source = await created(MQTT);
      const response = await put(source.id, {}).expect(200);
      expect(response.body).toEqual({ ...source, connectionDetails: null });
    });

    it.each([
      [91, 10, null, 10],
      [-90.0001, -181, null, null],
      [45, 180.1, 45, null],
      [-90, 180, -90, 180],
    ])(
      'stores an updated latitude %p / longitude %p as %p / %p',
      async (latitude, longitude, storedLat, storedLon) => {
        const source = await created({ ...MQTT, latitude: 12, longitude: 34 });
        const response = await put(source.id, { latitude, longitude }).expect(200);
        expect([response.body.latitude, response.body.longitude]).toEqual([storedLat, storedLon]);
        const read = await get(source.id).expect(200);
        expect([read.body.latitude, read.body.longitude]).toEqual([storedLat, storedLon]);
      },
    );

    it.each([
      ['name null', { name: null }, 'name'],
      ['name blank', { name: '  ' }, 'name'],
      ['name of 201 characters', { name: 'x'.repeat(201) }, 'name'],
      ['isActive null', { isActive: null }, 'isActive'],
      ['isActive a string', { isActive: 'false' }, 'isActive'],
      ['currency null', { currency: null }, 'currency'],
      ['currency EURO', { currency: 'EURO' }, 'currency'],
      ['connectionType', { connectionType: 'Webhook' }, 'connectionType'],
      ['iconUrl ftp', { iconUrl: 'ftp://x' }, 'iconUrl'],
      ['latitude a string', { latitude: '45' }, 'latitude'],
      ['powerGroupId not a UUID', { powerGroupId: 'nope' }, 'powerGroupId'],
      ['systemCost with 3 decimals', { systemCost: 1.234 }, 'systemCost'],
      ['installedCapacityWatts -1', { installedCapacityWatts: -1 }, 'installedCapacityWatts'],
      ['installationDate yesterday', { installationDate: 'yesterday' }, 'installationDate'],
      ['regenerateMqttApiKey null', { regenerateMqttApiKey: null }, 'regenerateMqttApiKey'],
      ['unknown property webhookSecret', { webhookSecret: 'x'.repeat(20) }, 'webhookSecret'],
    ])('rejects %s with errors.<field> and changes nothing', async (_case, change, field) => {
      const source = await created(MQTT);
      const response = await put(source.id, { description: 'should not be stored', ...change }).expect(400);
      expect(Object.keys(response.body)).toEqual(['errors']);
      expect(response.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
      expect((await get(source.id, '?includeConnectionDetails=true').expect(200)).body).toEqual(source);
    });

    it.each([
      ["another user's group", async () => createGroup('Foreign', other.cookie)],
      ['a random UUID', async () => Promise.resolve(randomUUID())],
    ])('rejects moving the source to %s', async (_case, groupOf) => {
      const source = await created(MQTT);
      const response = await put(source.id, { name: 'moved', powerGroupId: await groupOf() }).expect(400);
      expect(response.body).toEqual({ message: 'Power group not found' });
      expect((await get(source.id).expect(200)).body).toEqual({ ...source, connectionDetails: null });
    });

    it('regenerates the MQTT key with regenerateMqttApiKey: true and returns it once', async () => {
      const source = await created(MQTT);
      const oldDetails = source.connectionDetails as Body;
      const response = await put(source.id, { regenerateMqttApiKey: true }).expect(200);
      const details = response.body.connectionDetails;
      expect(details).toEqual({ ...oldDetails, mqttApiKey: expect.stringMatching(MQTT_KEY) });
      expect(details.mqttApiKey).not.toBe(oldDetails.mqttApiKey);
      const read = await get(source.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body.connectionDetails.mqttApiKey).toBe(details.mqttApiKey);
    });

    it('keeps the MQTT key with regenerateMqttApiKey: false', async () => {
      const source = await created(MQTT);
      const response = await put(source.id, { regenerateMqttApiKey: false, name: 'same key' }).expect(200);
      expect(response.body.connectionDetails).toBeNull();
      const read = await get(source.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body.connectionDetails).toEqual(source.connectionDetails);
    });

    it('refuses regenerateMqttApiKey on a Webhook source and changes nothing', async () => {
      const source = await created(WEBHOOK);
      const response = await put(source.id, { regenerateMqttApiKey: true, name: 'changed?' }).expect(400);
      expect(response.body).toEqual(NOT_MQTT);
      expect((await get(source.id, '?includeConnectionDetails=true').expect(200)).body).toEqual(source);
    });

    it('answers 404 for an unknown id and 400 for an invalid one', async () => {
      expect((await put(randomUUID(), { name: 'x' }).expect(404)).body).toEqual(NOT_FOUND);
      expect((await put('not-a-uuid', { name: 'x' }).expect(400)).body).toEqual({
        message: expect.any(String),
      });
    });
  });

  describe('DELETE /api/sunsources/{id}', () => {
    it('deletes the source and its prices: 204, then 404', async () => {
      const source = await created({ ...MQTT, initialKwhPrice: 0.3 });
      expect(await prices(source.id)).toHaveLength(1);
      const response = await http
        .delete(`/api/sunsources/${source.id}`)
        .set('Cookie', owner.cookie)
        .expect(204);
      expect(response.text).toBe('');
      expect((await get(source.id).expect(404)).body).toEqual(NOT_FOUND);
      const again = await http.delete(`/api/sunsources/${source.id}`).set('Cookie', owner.cookie).expect(404);
      expect(again.body).toEqual(NOT_FOUND);
      expect(await prices(source.id)).toEqual([]);
      const list = await http.get('/api/sunsources').set('Cookie', owner.cookie).expect(200);
      expect(list.body.map((s: Body) => s.id)).not.toContain(source.id);
    });

    it('answers 400 for an invalid id', async () => {
      const response = await http
        .delete('/api/sunsources/not-a-uuid')
        .set('Cookie', owner.cookie)
        .expect(400);
      expect(response.body).toEqual({ message: expect.any(String) });
    });
  });

  describe('credential endpoints', () => {
    let mqtt: Body & { id: string };
    let webhook: Body & { id: string };

    beforeAll(async () => {
      mqtt = await created(MQTT);
      webhook = await created(WEBHOOK);
    });

    it('GET webhook-url answers the URL of a Webhook source', async () => {
      const response = await http
        .get(`/api/sunsources/${webhook.id}/webhook-url`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(response.body).toEqual({
        webhookUrl: `${env.config.publicBaseUrl}/api/webhook/sunsource/${webhook.id}`,
      });
      expect(response.body.webhookUrl).toBe((webhook.connectionDetails as Body).webhookUrl);
    });

    it('GET webhook-url refuses an MQTT source', async () => {
      const response = await http
        .get(`/api/sunsources/${mqtt.id}/webhook-url`)
        .set('Cookie', owner.cookie)
        .expect(400);
      expect(response.body).toEqual(NOT_WEBHOOK);
    });

    it('rotate-secret issues a new webhook secret that replaces the old', async () => {
      const before = (await get(webhook.id, '?includeConnectionDetails=true').expect(200)).body
        .connectionDetails;
      const response = await http
        .post(`/api/sunsources/${webhook.id}/rotate-secret`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(response.body).toEqual({ webhookSecret: expect.stringMatching(WEBHOOK_SECRET) });
      expect(response.body.webhookSecret).not.toBe(before.webhookSecret);
      const after = (await get(webhook.id, '?includeConnectionDetails=true').expect(200)).body
        .connectionDetails;
      expect(after).toEqual({ ...before, webhookSecret: response.body.webhookSecret });
    });

    it('rotate-secret replaces a secret the owner supplied', async () => {
      const source = await created({ ...WEBHOOK, webhookSecret: 'a-supplied-secret-value' });
      const response = await http
        .post(`/api/sunsources/${source.id}/rotate-secret`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(response.body.webhookSecret).toMatch(WEBHOOK_SECRET);
      const after = await get(source.id, '?includeConnectionDetails=true').expect(200);
      expect(after.body.connectionDetails.webhookSecret).toBe(response.body.webhookSecret);
    });

    it('rotate-secret refuses an MQTT source and leaves its key', async () => {
      const response = await http
        .post(`/api/sunsources/${mqtt.id}/rotate-secret`)
        .set('Cookie', owner.cookie)
        .expect(400);
      expect(response.body).toEqual(NOT_WEBHOOK);
      const read = await get(mqtt.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body.connectionDetails.webhookSecret).toBeNull();
    });

    it('regenerate-mqtt-key issues a new key that replaces the old', async () => {
      const before = (await get(mqtt.id, '?includeConnectionDetails=true').expect(200)).body
        .connectionDetails;
      const response = await http
        .post(`/api/sunsources/${mqtt.id}/regenerate-mqtt-key`)
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(response.body).toEqual({ mqttApiKey: expect.stringMatching(MQTT_KEY) });
      expect(response.body.mqttApiKey).not.toBe(before.mqttApiKey);
      const after = (await get(mqtt.id, '?includeConnectionDetails=true').expect(200)).body.connectionDetails;
      expect(after).toEqual({ ...before, mqttApiKey: response.body.mqttApiKey });
    });

    it('regenerate-mqtt-key refuses a Webhook source', async () => {
      const response = await http
        .post(`/api/sunsources/${webhook.id}/regenerate-mqtt-key`)
        .set('Cookie', owner.cookie)
        .expect(400);
      expect(response.body).toEqual(NOT_MQTT);
      const read = await get(webhook.id, '?includeConnectionDetails=true').expect(200);
      expect(read.body.connectionDetails.mqttApiKey).toBeNull();
    });

    it.each([
      ['GET', 'webhook-url'],
      ['POST', 'rotate-secret'],
      ['POST', 'regenerate-mqtt-key'],
    ])('%s %s answers 404 for an unknown id and 400 for an invalid one', async (method, action) => {
      const call = (id: string) =>
        (method === 'GET'
          ? http.get(`/api/sunsources/${id}/${action}`)
          : http.post(`/api/sunsources/${id}/${action}`)
        ).set('Cookie', owner.cookie);
      expect((await call(randomUUID()).expect(404)).body).toEqual(NOT_FOUND);
      expect((await call('not-a-uuid').expect(400)).body).toEqual({ message: expect.any(String) });
    });
  });

  it('keeps device credentials encrypted at rest', async () => {
    const mqtt = await created(MQTT);
    const webhook = await created({ ...WEBHOOK, webhookSecret: 'plain-text-shared-secret-42' });
    const generated = await created(WEBHOOK);
    const secrets = [
      (mqtt.connectionDetails as Body).mqttApiKey as string,
      (webhook.connectionDetails as Body).webhookSecret as string,
      (generated.connectionDetails as Body).webhookSecret as string,
    ];
    const { rows } = await db.query<{
      id: string;
      text: string;
      mqtt: string | null;
      webhook: string | null;
    }>(
      `SELECT id, row_to_json(s)::text AS text, mqtt_api_key_encrypted AS mqtt, webhook_secret_encrypted AS webhook
         FROM sun_sources s WHERE id = ANY($1::uuid[])`,
      [[mqtt.id, webhook.id, generated.id]],
    );
    expect(rows).toHaveLength(3);
    const all = rows.map((row) => row.text).join('\n');
    for (const secret of secrets) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(3));
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(mqtt.id)).toMatchObject({ mqtt: expect.stringMatching(/^v1\./), webhook: null });
    expect(byId.get(webhook.id)).toMatchObject({ mqtt: null, webhook: expect.stringMatching(/^v1\./) });
    expect(byId.get(generated.id)).toMatchObject({ mqtt: null, webhook: expect.stringMatching(/^v1\./) });

    const rotated = await http
      .post(`/api/sunsources/${webhook.id}/rotate-secret`)
      .set('Cookie', owner.cookie)
      .expect(200);
    const regenerated = await http
      .post(`/api/sunsources/${mqtt.id}/regenerate-mqtt-key`)
      .set('Cookie', owner.cookie)
      .expect(200);
    const after = await db.query<{ text: string }>(
      'SELECT row_to_json(s)::text AS text FROM sun_sources s WHERE id = ANY($1::uuid[])',
      [[mqtt.id, webhook.id]],
    );
    const text = after.rows.map((row) => row.text).join('\n');
    expect(text).not.toContain(rotated.body.webhookSecret);
    expect(text).not.toContain(regenerated.body.mqttApiKey);
  });

  it('keeps beside each credential a keyed digest, renewed with it, that is no plain hash', async () => {
    const mqtt = await created(MQTT);
    const webhook = await created({ ...WEBHOOK, webhookSecret: 'plain-text-shared-secret-42' });
    const digests = async () =>
      new Map(
        (
          await db.query<{ id: string; mqtt: Buffer | null; webhook: Buffer | null }>(
            `SELECT id, mqtt_api_key_digest AS mqtt, webhook_secret_digest AS webhook
               FROM sun_sources WHERE id = ANY($1::uuid[])`,
            [[mqtt.id, webhook.id]],
          )
        ).rows.map((row) => [row.id, row]),
      );
    const before = await digests();
    expect(before.get(mqtt.id)).toMatchObject({ mqtt: expect.any(Buffer), webhook: null });
    expect(before.get(webhook.id)).toMatchObject({ mqtt: null, webhook: expect.any(Buffer) });
    expect(before.get(mqtt.id)!.mqtt).toHaveLength(32);
    const plain = createHash('sha256').update('plain-text-shared-secret-42').digest();
    expect(before.get(webhook.id)!.webhook!.equals(plain)).toBe(false);

    await http.post(`/api/sunsources/${webhook.id}/rotate-secret`).set('Cookie', owner.cookie).expect(200);
    await http.post(`/api/sunsources/${mqtt.id}/regenerate-mqtt-key`).set('Cookie', owner.cookie).expect(200);
    const after = await digests();
    expect(after.get(mqtt.id)!.mqtt!.equals(before.get(mqtt.id)!.mqtt!)).toBe(false);
    expect(after.get(webhook.id)!.webhook!.equals(before.get(webhook.id)!.webhook!)).toBe(false);
  });

  describe("another user's source", () => {
    let mqtt: Body & { id: string };
    let webhook: Body & { id: string };

    beforeAll(async () => {
      mqtt = await created({ ...MQTT, name: 'Owner MQTT', initialKwhPrice: 0.2 });
      webhook = await created({ ...WEBHOOK, name: 'Owner Webhook' });
    });

    it.each([
      ['GET', '', undefined],
      ['GET', '?includeConnectionDetails=true', undefined],
      ['PUT', '', { name: 'hijacked', isActive: false }],
      ['PUT', '', { regenerateMqttApiKey: true }],
      ['DELETE', '', undefined],
      ['GET', '/webhook-url', undefined],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/regenerate-mqtt-key', undefined],
    ])('%s {id}%s answers 404 "Sun source not found" and changes nothing', async (method, suffix, body) => {
      for (const source of [mqtt, webhook]) {
        const path = `/api/sunsources/${source.id}${suffix}`;
        const verb = method.toLowerCase() as 'get' | 'put' | 'post' | 'delete';
        const response = await http[verb](path).set('Cookie', other.cookie).send(body).expect(404);
        expect(response.body).toEqual(NOT_FOUND);
        const read = await get(source.id, '?includeConnectionDetails=true').expect(200);
        expect(read.body).toEqual(source);
      }
      expect(await prices(mqtt.id)).toHaveLength(1);
    });

    it('does not appear in the other user’s list, even filtered by the owner’s group', async () => {
      const groupId = await createGroup('Owner-only group');
      const grouped = await created({ ...MQTT, powerGroupId: groupId });
      const list = await http.get('/api/sunsources').set('Cookie', other.cookie).expect(200);
      const ids = list.body.map((source: Body) => source.id);
      expect(ids).not.toContain(mqtt.id);
      expect(ids).not.toContain(webhook.id);
      expect(ids).not.toContain(grouped.id);
      await http.get(`/api/sunsources?powerGroupId=${groupId}`).set('Cookie', other.cookie).expect(200, []);
    });
  });

  describe('account deletion by an administrator', () => {
    it('removes the user’s sources, groups and prices; stats and the user list count sources', async () => {
      const admin = await logIn(http, ADMIN_EMAIL, ADMIN_PASSWORD);
      const doomed = await signUp(http, env.mail);
      const groupId = await createGroup('Doomed group', doomed.cookie);
      const sources = [
        await created({ ...MQTT, powerGroupId: groupId, initialKwhPrice: 0.31 }, doomed.cookie),
        await created({ ...WEBHOOK, initialKwhPrice: 0.27 }, doomed.cookie),
        await created(MQTT, doomed.cookie),
      ];
      const sourceIds = sources.map((source) => source.id);

      const totalSources = async () =>
        (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sun_sources')).rows[0].n;
      const statsBefore = await http.get('/api/admin/stats').set('Cookie', admin).expect(200);
      expect(statsBefore.body.sunSources).toBe(await totalSources());

      const users = await http
        .get(`/api/admin/users?search=${encodeURIComponent(doomed.email)}`)
        .set('Cookie', admin)
        .expect(200);
      expect(users.body.items).toEqual([expect.objectContaining({ id: doomed.id, sunSourceCount: 3 })]);
      const ownerRow = await http
        .get(`/api/admin/users?search=${encodeURIComponent(owner.email)}`)
        .set('Cookie', admin)
        .expect(200);
      expect(ownerRow.body.items).toEqual([
        expect.objectContaining({ id: owner.id, sunSourceCount: await sourceCount(owner.id) }),
      ]);

      const counts = async () => {
        const { rows } = await db.query<{ sources: number; groups: number; prices: number }>(
          `SELECT (SELECT count(*)::int FROM sun_sources WHERE user_id = $1 OR id = ANY($2::uuid[])) AS sources,
                  (SELECT count(*)::int FROM power_groups WHERE user_id = $1) AS groups,
                  (SELECT count(*)::int FROM kwh_prices WHERE sun_source_id = ANY($2::uuid[])) AS prices`,
          [doomed.id, sourceIds],
        );
        return rows[0];
      };
      expect(await counts()).toEqual({ sources: 3, groups: 1, prices: 2 });

      await http.delete(`/api/admin/users/${doomed.id}`).set('Cookie', admin).expect(204);

      expect(await counts()).toEqual({ sources: 0, groups: 0, prices: 0 });
      const statsAfter = await http.get('/api/admin/stats').set('Cookie', admin).expect(200);
      expect(statsAfter.body.sunSources).toBe(statsBefore.body.sunSources - 3);
      expect(statsAfter.body.sunSources).toBe(await totalSources());
      expect(await sourceCount(owner.id)).toBeGreaterThan(0);
    });
  });
});
