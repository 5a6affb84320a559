import { INestApplication } from '@nestjs/common';
import http from 'node:http';
import net from 'node:net';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  signUp,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { startApi } from './support/api-harness';

jest.setTimeout(30_000);

const IDLE_SECONDS = 2;
const START = new Date('2026-05-02T00:00:00Z');
/** 10-second rows: about 9 MB of CSV, more than the socket buffers of a client that stopped reading. */
const ROWS = 100_000;
const END = new Date(START.getTime() + ROWS * 10_000);
const TOO_MANY_EXPORTS = { message: 'Too many exports in progress. Try again later.' };

/**
 * An export whose client sends the request, reads the response head, then stops reading: the
 * api's writes back up until the socket buffers on both sides are full.
 */
class StalledDownload {
  private readonly socket: net.Socket;
  readonly head: Promise<string>;

  constructor(port: number, path: string, cookie: string) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined); // reset once the api gives up on it
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`);
    this.head = new Promise((resolve) => {
      let received = '';
      const onData = (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        this.socket.off('data', onData);
        this.socket.pause();
        resolve(received.slice(0, end));
      };
      this.socket.on('data', onData);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('export limits (EXPORT_MAX_PER_USER, EXPORT_IDLE_TIMEOUT_SECONDS)', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let api: Http;
  let db: Client;
  let port: number;
  let alice: { cookie: string };
  let bob: { cookie: string };
  let large: string;
  let small: string;
  let alicesSmall: string;

  beforeAll(async () => {
    env = await createTestEnvironment({
      EXPORT_MAX_PER_USER: '1',
      EXPORT_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
    });
    ({ app, http: api } = await startApi(env.config, new FakeClock(new Date('2026-06-01T12:00:00Z'))));
    const server = app.getHttpServer() as http.Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    [alice, bob] = [await signUp(api, env.mail), await signUp(api, env.mail)];
    large = (await createWebhookSource(api, alice.cookie)).id;
    small = (await createWebhookSource(api, bob.cookie)).id;
    alicesSmall = (await createWebhookSource(api, alice.cookie)).id;
    await db.query(`SELECT ensure_telemetry_partition('2026-05-01')`);
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, state_of_charge, solar_power, battery_current,
         battery_voltage, solar_voltage, daily_energy_produced, operating_mode, raw)
       SELECT $1, $2::timestamptz + i * interval '10 seconds', (i % 101)::float8, i * 0.25,
         (i % 50) - 25.5, 48.123 + (i % 10), 300.5 + (i % 17), (i % 8640) / 100.0, 'Mode ' || (i % 7), '{}'
       FROM generate_series(0, $3::int - 1) AS i`,
      [large, START, ROWS],
    );
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, solar_power, raw)
       SELECT s, $2::timestamptz + i * interval '10 seconds', i, '{}'
         FROM generate_series(0, 999) AS i, unnest($1::uuid[]) AS s`,
      [[small, alicesSmall], START],
    );
  }, 60_000);

  afterAll(async () => {
    await db.end();
    await app.close();
    await env.teardown();
  });

  const query = `startDate=${START.toISOString()}&endDate=${END.toISOString()}`;
  const exportPath = (sourceId: string) => `/api/export/${sourceId}/csv?${query}`;

  const download = (sourceId: string, cookie: string) =>
    api.get(`/api/export/${sourceId}/csv`).query(query).set('Cookie', cookie).buffer(true);

  /** Backends of this database inside an export's transaction (or running its cursor). */
  async function exportBackends(): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (state LIKE 'idle in transaction%' OR (state <> 'idle' AND query LIKE '%export_rows%'))`,
    );
    return rows[0].n;
  }

  it('refuses a second export of one user with 429 while another user exports', async () => {
    const stalled = new StalledDownload(port, exportPath(large), alice.cookie);
    try {
      expect(await stalled.head).toMatch(/^HTTP\/1\.1 200 OK/);

      const second = await download(large, alice.cookie);
      const other = await download(small, bob.cookie);

      expect(second.status).toBe(429);
      expect(second.headers['retry-after']).toBe('30');
      expect(second.body).toEqual(TOO_MANY_EXPORTS);
      expect(other.status).toBe(200);
      expect(other.text.split('\r\n')).toHaveLength(1 + 1000 + 1);
    } finally {
      stalled.close();
    }
    // Once the client is gone its slot is free again.
    await waitFor(async () => (await download(small, bob.cookie)).status === 200, 'bob exports');
    await waitFor(
      async () => (await download(alicesSmall, alice.cookie)).status === 200,
      'alice exports again',
    );
  });

  it('closes a download whose client stopped reading, and ends its transaction', async () => {
    const stalled = new StalledDownload(port, exportPath(large), alice.cookie);
    try {
      expect(await stalled.head).toMatch(/^HTTP\/1\.1 200 OK/);
      const stalledAt = Date.now();
      // Another user's export goes through meanwhile.
      const other = await download(small, bob.cookie).expect(200);
      expect(other.text.split('\r\n')).toHaveLength(1 + 1000 + 1);
      expect(await exportBackends()).toBe(1);

      await waitFor(async () => (await exportBackends()) === 0, 'the stalled export to end', 10_000);

      expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000);
      // The user's only slot is free again.
      const again = await download(alicesSmall, alice.cookie).expect(200);
      expect(again.text.split('\r\n')).toHaveLength(1 + 1000 + 1);
    } finally {
      stalled.close();
    }
  });
});
