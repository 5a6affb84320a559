import { INestApplication } from '@nestjs/common';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { disconnectChannel, EMQX_KICK_ATTEMPTS, emqxKickKeys } from '@solar/domain';
import {
  createTestEnvironment,
  Http,
  lastReadUntil,
  signUp,
  TEST_REDIS_URL,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const ALLOW_DEVICE = { result: 'allow', is_superuser: false };
const DENY = { result: 'deny' };

/** EMQX's REST API as far as the api uses it: list a username's clients, kick one. */
class FakeEmqx {
  readonly requests: Array<{ method: string; url: string; authorization?: string }> = [];
  clients: Array<{ clientid: string; username: string }> = [];
  /** The next this many calls answer 503, as an EMQX that is restarting would. */
  failures = 0;
  private readonly server: Server = createServer((request: IncomingMessage, response) => {
    this.requests.push({
      method: request.method!,
      url: request.url!,
      authorization: request.headers.authorization,
    });
    const url = new URL(request.url!, 'http://emqx');
    response.setHeader('content-type', 'application/json');
    if (this.failures > 0) {
      this.failures -= 1;
      response.statusCode = 503;
      response.end(JSON.stringify({ code: 'SERVICE_UNAVAILABLE' }));
    } else if (request.method === 'GET' && url.pathname === '/api/v5/clients') {
      const username = url.searchParams.get('username');
      response.end(
        JSON.stringify({ data: this.clients.filter((client) => client.username === username), meta: {} }),
      );
    } else {
      response.statusCode = 204;
      response.end();
    }
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v5`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('broker callbacks /api/internal/mqtt', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let cookie: string;
  let key: string;
  const emqx = new FakeEmqx();

  beforeAll(async () => {
    const emqxUrl = await emqx.start();
    env = await createTestEnvironment({
      MQTT_USERNAME: 'ingestor',
      MQTT_PASSWORD: 'ingestor-password-123',
      EMQX_API_URL: emqxUrl,
      EMQX_API_KEY: 'solar-api',
      EMQX_API_SECRET: 'emqx-secret',
    });
    ({ app, http } = await startApi(env.config));
    ({ cookie } = await signUp(http, env.mail));
    key = env.config.internalApiKey;
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
    await emqx.stop();
  });

  const auth = (body: object, apiKey = key) =>
    http.post('/api/internal/mqtt/auth').set('X-Internal-API-Key', apiKey).send(body);
  const acl = (body: object) => http.post('/api/internal/mqtt/acl').set('X-Internal-API-Key', key).send(body);

  async function mqttSource(): Promise<{ id: string; key: string }> {
    const created = await http
      .post('/api/sunsources')
      .set('Cookie', cookie)
      .send({ name: 'Dev', connectionType: 'MQTT' })
      .expect(201);
    return { id: created.body.id, key: created.body.connectionDetails.mqttApiKey };
  }

  describe('the internal key', () => {
    it.each([
      ['no header', undefined],
      ['a wrong key', 'wrong'],
      ['the key with one more character', 'KEY+'],
    ])('refuses %s with 401 on both endpoints', async (_case, header) => {
      const apiKey = header === 'KEY+' ? `${key}x` : header;
      const request = (path: string) => {
        const call = http.post(`/api/internal/mqtt/${path}`);
        return (apiKey === undefined ? call : call.set('X-Internal-API-Key', apiKey)).send({
          clientId: 'c',
          username: 'u',
          password: 'p',
          topic: 't',
          action: 'publish',
        });
      };
      expect((await request('auth').expect(401)).body).toEqual({ message: 'Invalid internal API key' });
      await request('acl').expect(401);
    });

    it('needs no session', async () => {
      await auth({ clientId: 'c', username: 'u', password: 'p' }).expect(200);
    });
  });

  describe('auth', () => {
    it('allows a device with its key, form B and form A, never as superuser', async () => {
      const source = await mqttSource();
      expect(
        (
          await auth({
            clientId: `src-${source.id}`,
            username: `src-${source.id}`,
            password: source.key,
          }).expect(200)
        ).body,
      ).toEqual(ALLOW_DEVICE);
      const formA = {
        clientId: `sunsource_${source.id.slice(0, 8)}`,
        username: source.id,
        password: source.key,
      };
      expect((await auth(formA).expect(200)).body).toEqual(ALLOW_DEVICE);
    });

    it('allows the ingestor account as superuser, and denies it with another password', async () => {
      expect(
        (await auth({ clientId: 'solar-ingestor', username: 'ingestor', password: 'ingestor-password-123' }))
          .body,
      ).toEqual({
        result: 'allow',
        is_superuser: true,
      });
      expect(
        (await auth({ clientId: 'solar-ingestor', username: 'ingestor', password: 'nope' })).body,
      ).toEqual(DENY);
    });

    it('denies, with one and the same answer, a wrong key, a borrowed client id, an unknown source, a Webhook source', async () => {
      const source = await mqttSource();
      const other = await mqttSource();
      const webhook = await http
        .post('/api/sunsources')
        .set('Cookie', cookie)
        .send({ name: 'W', connectionType: 'Webhook' })
        .expect(201);
      const unknown = '7d444840-9dc0-41d1-b245-5ffdce74fad2';
      const attempts = [
        { clientId: `src-${source.id}`, username: `src-${source.id}`, password: `${source.key}0` },
        { clientId: `src-${other.id}`, username: `src-${source.id}`, password: source.key },
        { clientId: `src-${unknown}`, username: `src-${unknown}`, password: source.key },
        {
          clientId: `src-${webhook.body.id}`,
          username: `src-${webhook.body.id}`,
          password: webhook.body.connectionDetails.webhookSecret,
        },
        { clientId: 'anything', username: 'not-a-source', password: source.key },
        { clientId: `src-${source.id}`, username: `src-${source.id}`, password: '' },
      ];
      for (const attempt of attempts) expect((await auth(attempt).expect(200)).body).toEqual(DENY);
    });

    it('denies an inactive source, and a deleted one', async () => {
      const source = await mqttSource();
      const login = { clientId: `src-${source.id}`, username: `src-${source.id}`, password: source.key };
      await http
        .put(`/api/sunsources/${source.id}`)
        .set('Cookie', cookie)
        .send({ isActive: false })
        .expect(200);
      expect((await auth(login)).body).toEqual(DENY);
      await http
        .put(`/api/sunsources/${source.id}`)
        .set('Cookie', cookie)
        .send({ isActive: true })
        .expect(200);
      expect((await auth(login)).body).toEqual(ALLOW_DEVICE);
      await http.delete(`/api/sunsources/${source.id}`).set('Cookie', cookie).expect(204);
      expect((await auth(login)).body).toEqual(DENY);
    });

    it('refuses the old key at once after regenerate-mqtt-key, and accepts the new one', async () => {
      const source = await mqttSource();
      const regenerated = await http
        .post(`/api/sunsources/${source.id}/regenerate-mqtt-key`)
        .set('Cookie', cookie)
        .expect(200);
      const login = { clientId: `src-${source.id}`, username: `src-${source.id}` };
      expect((await auth({ ...login, password: source.key })).body).toEqual(DENY);
      expect((await auth({ ...login, password: regenerated.body.mqttApiKey })).body).toEqual(ALLOW_DEVICE);

      const updated = await http
        .put(`/api/sunsources/${source.id}`)
        .set('Cookie', cookie)
        .send({ regenerateMqttApiKey: true })
        .expect(200);
      expect((await auth({ ...login, password: regenerated.body.mqttApiKey })).body).toEqual(DENY);
      expect((await auth({ ...login, password: updated.body.connectionDetails.mqttApiKey })).body).toEqual(
        ALLOW_DEVICE,
      );
    });

    it('answers a malformed request with 400, not 500', async () => {
      const response = await auth({ clientId: 1, username: ['u'] }).expect(400);
      expect(Object.keys(response.body.errors).sort()).toEqual(['clientId', 'password', 'username']);
    });

    it('denies, with 200, whatever long names and keys a client chose', async () => {
      const { id, key: password } = await mqttSource();
      for (const login of [
        { clientId: `src-${id}`, username: `src-${id}${'x'.repeat(300)}`, password },
        { clientId: 'c'.repeat(5000), username: `src-${id}`, password },
        { clientId: `src-${id}`, username: `src-${id}`, password: `${password}${'k'.repeat(5000)}` },
      ]) {
        expect((await auth(login).expect(200)).body).toEqual(DENY);
      }
    });
  });

  describe('acl', () => {
    it('allows a device to publish to its own topic, in either form', async () => {
      const { id } = await mqttSource();
      const device = { clientId: `src-${id}`, username: `src-${id}`, action: 'publish' };
      expect(
        (await acl({ ...device, topic: `${env.config.mqtt.topicPrefix}/sources/${id}/data` }).expect(200))
          .body,
      ).toEqual({ result: 'allow' });
      expect((await acl({ ...device, topic: `sunsource/${id}/data` })).body).toEqual({ result: 'allow' });
    });

    it('denies, with 200, long topics, actions and names', async () => {
      const { id } = await mqttSource();
      const device = { clientId: `src-${id}`, username: `src-${id}`, action: 'publish' };
      const topic = `${env.config.mqtt.topicPrefix}/sources/${id}/data`;
      for (const request of [
        { ...device, topic: `${topic}/${'t'.repeat(2000)}` },
        { ...device, topic, action: 'p'.repeat(100) },
        { ...device, topic, username: `src-${id}${'x'.repeat(300)}` },
      ]) {
        expect((await acl(request).expect(200)).body).toEqual({ result: 'deny' });
      }
    });

    it('denies other topics, other sources, subscriptions and borrowed client ids', async () => {
      const { id } = await mqttSource();
      const other = await mqttSource();
      const device = { clientId: `src-${id}`, username: `src-${id}` };
      const own = `${env.config.mqtt.topicPrefix}/sources/${id}/data`;
      const denied = [
        { ...device, action: 'publish', topic: `${env.config.mqtt.topicPrefix}/sources/${other.id}/data` },
        { ...device, action: 'publish', topic: `${env.config.mqtt.topicPrefix}/sources/+/data` },
        { ...device, action: 'publish', topic: `${own}/extra` },
        { ...device, action: 'subscribe', topic: own },
        { ...device, action: 'subscribe', topic: '#' },
        { clientId: `src-${other.id}`, username: `src-${id}`, action: 'publish', topic: own },
      ];
      for (const request of denied) expect((await acl(request).expect(200)).body).toEqual(DENY);
    });

    it('denies the devices of an inactive, a deleted or a Webhook source, and allows them when active again', async () => {
      const { id } = await mqttSource();
      const publish = {
        clientId: `src-${id}`,
        username: `src-${id}`,
        action: 'publish',
        topic: `${env.config.mqtt.topicPrefix}/sources/${id}/data`,
      };
      const switchTo = (isActive: boolean) =>
        http.put(`/api/sunsources/${id}`).set('Cookie', cookie).send({ isActive }).expect(200);
      expect((await acl(publish).expect(200)).body).toEqual({ result: 'allow' });
      await switchTo(false);
      expect((await acl(publish).expect(200)).body).toEqual(DENY);
      await switchTo(true);
      expect((await acl(publish).expect(200)).body).toEqual({ result: 'allow' });
      await http.delete(`/api/sunsources/${id}`).set('Cookie', cookie).expect(204);
      expect((await acl(publish).expect(200)).body).toEqual(DENY);

      const webhook = await http
        .post('/api/sunsources')
        .set('Cookie', cookie)
        .send({ name: 'W', connectionType: 'Webhook' })
        .expect(201);
      const hooked = webhook.body.id as string;
      expect(
        (
          await acl({
            clientId: `src-${hooked}`,
            username: `src-${hooked}`,
            action: 'publish',
            topic: `${env.config.mqtt.topicPrefix}/sources/${hooked}/data`,
          }).expect(200)
        ).body,
      ).toEqual(DENY);
    });

    it('lets the ingestor subscribe', async () => {
      const body = {
        clientId: 'solar-ingestor',
        username: 'ingestor',
        action: 'subscribe',
        topic: '$share/g/solar/sources/+/data',
      };
      expect((await acl(body)).body).toEqual({ result: 'allow' });
    });
  });

  describe('dropping live devices when a key changes', () => {
    it('announces the source on Redis for the embedded broker and kicks its clients out of EMQX', async () => {
      const source = await mqttSource();
      emqx.clients = [
        { clientid: `src-${source.id}`, username: `src-${source.id}` },
        { clientid: 'someone-else', username: 'src-00000000-0000-4000-8000-000000000000' },
      ];
      emqx.requests.length = 0;
      const subscriber = new Redis(TEST_REDIS_URL);
      const heard: string[] = [];
      await subscriber.subscribe(disconnectChannel(env.config));
      subscriber.on('message', (_channel, message) => heard.push(message));
      try {
        await http.post(`/api/sunsources/${source.id}/regenerate-mqtt-key`).set('Cookie', cookie).expect(200);
        const deadline = Date.now() + 2000;
        while (heard.length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        subscriber.disconnect();
      }
      expect(heard.map((message) => JSON.parse(message))).toEqual([{ sunSourceId: source.id }]);
      expect(
        emqx.requests.filter((request) => request.method === 'DELETE').map((request) => request.url),
      ).toEqual([`/api/v5/clients/src-${source.id}`]);
      expect(emqx.requests[0].authorization).toBe(
        `Basic ${Buffer.from('solar-api:emqx-secret').toString('base64')}`,
      );
    });

    const redis = () => new Redis(TEST_REDIS_URL, { keyPrefix: env.config.redisKeyPrefix });
    const kicksOf = (sourceId: string) =>
      emqx.requests.filter((request) => request.method === 'DELETE' && request.url.includes(sourceId));
    const health = async () => {
      const response = await http.get('/api/health');
      return {
        code: response.status,
        status: response.body.status,
        emqxKicks: response.body.checks.emqxKicks,
      };
    };

    it('retries a failed EMQX kick with backoff until it succeeds, and shows it pending meanwhile', async () => {
      const source = await mqttSource();
      emqx.clients = [{ clientid: `src-${source.id}`, username: `src-${source.id}` }];
      emqx.requests.length = 0;
      // The answer's own attempt and the first retry (2 s later) fail; the second retry (4 s later) kicks.
      emqx.failures = 2;
      await http
        .put(`/api/sunsources/${source.id}`)
        .set('Cookie', cookie)
        .send({ isActive: false })
        .expect(200);
      expect(kicksOf(source.id)).toEqual([]);
      expect(await health()).toEqual({
        code: 200,
        status: 'ok',
        emqxKicks: { status: 'up', pending: 1, failing: 0 },
      });
      const kicked = await lastReadUntil(
        async () => kicksOf(source.id).length,
        (n) => n > 0,
        10_000,
        100,
      );
      expect(kicked).toBe(1);
      expect(emqx.failures).toBe(0);
      // EMQX has the request before the api has its answer and clears the pending entry.
      expect(await lastReadUntil(health, (now) => now.emqxKicks.pending === 0, 2000, 50)).toEqual({
        code: 200,
        status: 'ok',
        emqxKicks: { status: 'up', pending: 0, failing: 0 },
      });
    }, 20_000);

    it('gives up after the last attempt, carrying on attempts an earlier process scheduled: degraded, still 200', async () => {
      const source = await mqttSource();
      emqx.clients = [{ clientid: `src-${source.id}`, username: `src-${source.id}` }];
      emqx.requests.length = 0;
      emqx.failures = 1_000;
      // As an api process that crashed would have left it: the last attempt is due now.
      const store = redis();
      try {
        await store.hset(emqxKickKeys.attempts, source.id, EMQX_KICK_ATTEMPTS - 1);
        await store.zadd(emqxKickKeys.pending, Date.now(), source.id);
        const seen = await lastReadUntil(health, (now) => now.emqxKicks.failing === 1, 5000, 100);
        expect(seen).toEqual({
          code: 200,
          status: 'degraded',
          emqxKicks: { status: 'degraded', pending: 0, failing: 1 },
        });
        expect(emqx.requests.filter((request) => request.method === 'GET')).toHaveLength(1);
        // A later kick of that source that succeeds clears it.
        emqx.failures = 0;
        await http.delete(`/api/sunsources/${source.id}`).set('Cookie', cookie).expect(204);
        expect(kicksOf(source.id)).toHaveLength(1);
        expect(await health()).toEqual({
          code: 200,
          status: 'ok',
          emqxKicks: { status: 'up', pending: 0, failing: 0 },
        });
      } finally {
        emqx.failures = 0;
        store.disconnect();
      }
    });

    it('kicks the devices of a deleted source too', async () => {
      const source = await mqttSource();
      emqx.clients = [{ clientid: `sunsource_${source.id.slice(0, 8)}`, username: source.id }];
      emqx.requests.length = 0;
      await http.delete(`/api/sunsources/${source.id}`).set('Cookie', cookie).expect(204);
      expect(
        emqx.requests.filter((request) => request.method === 'DELETE').map((request) => request.url),
      ).toEqual([`/api/v5/clients/sunsource_${source.id.slice(0, 8)}`]);
    });
  });
});
