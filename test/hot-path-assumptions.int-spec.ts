import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { Request, Response } from 'express';
import helmet from 'helmet';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Pool, PoolConfig } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, pgPool } from '@solar/database';
import { ApiExpressAdapter } from '@solar/platform';
import { createTestDatabase } from '@solar/testing';

/**
 * What the measures of docs/hot-paths.md read from Nest, Express, helmet, TypeORM and pg that
 * those libraries do not promise. Each check fails with the measure it breaks: after an upgrade,
 * a failure here says which measure to revisit before any behaviour test shows a symptom.
 */
const BROKEN = (measure: string, what: string) => `${what}: revisit "${measure}" in docs/hot-paths.md`;

@Controller('probe')
class ProbeController {
  @Get()
  probe(): { ok: boolean } {
    return { ok: true };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('the libraries still behave as the hot-path measures assume', () => {
  it('Nest serves an app through exactly one `request` listener on its HTTP server', async () => {
    const app = await NestFactory.create(ProbeModule, new ApiExpressAdapter(), { logger: false });
    await app.init();
    const listeners = (app.getHttpServer() as Server).listeners('request');
    await app.close();

    expect({
      check: BROKEN("Devices' webhook answered ahead of Express and Nest", 'request listeners'),
      count: listeners.length,
    }).toEqual({ check: expect.any(String), count: 1 });
  });

  it('Nest creates its HTTP server in ExpressAdapter.initHttpServer', async () => {
    const adapter = new ApiExpressAdapter();
    const app = await NestFactory.create(ProbeModule, adapter, { logger: false });
    expect({
      check: BROKEN("Requests built on Express's prototypes", 'the server Nest uses'),
      ours: app.getHttpServer() === adapter.getHttpServer(),
      hook: typeof ExpressAdapter.prototype.initHttpServer,
    }).toEqual({ check: expect.any(String), ours: true, hook: 'function' });
    await app.close();
  });

  it('Express gives every request and response `app.request` and `app.response` as prototypes', async () => {
    const app = express();
    const seen: boolean[] = [];
    app.get('/', (request, response) => {
      seen.push(
        Object.getPrototypeOf(request) === app.request,
        Object.getPrototypeOf(response) === app.response,
      );
      response.end();
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/`);
    await new Promise<void>((resolve) => server.close(() => resolve()));

    expect({
      check: BROKEN("Requests built on Express's prototypes", 'prototypes set by Express'),
      seen,
    }).toEqual({
      check: expect.any(String),
      seen: [true, true],
    });
  });

  it('helmet’s headers depend on its options only, not on the request', () => {
    const record = (request: Partial<Request>): string[] => {
      const headers: string[] = [];
      const response = {
        setHeader: (name: string, value: unknown) => headers.push(name, String(value)),
        removeHeader: () => undefined,
      };
      helmet()(request as Request, response as unknown as Response, () => undefined);
      return headers;
    };
    const plain = record({});
    const busy = record({
      method: 'POST',
      url: '/api/webhook/sunsource/x?y=1',
      headers: { origin: 'https://example.org', 'user-agent': 'MSIE 8.0', 'x-forwarded-proto': 'https' },
      secure: true,
    } as Partial<Request>);

    expect({
      check: BROKEN("helmet's headers computed once", 'headers differ by request'),
      headers: busy,
    }).toEqual({
      check: expect.any(String),
      headers: plain,
    });
    expect(plain.length).toBeGreaterThan(10);
  });

  describe('on a database', () => {
    let drop: () => Promise<void>;
    let dataSource: DataSource;

    beforeAll(async () => {
      let url: string;
      ({ url, drop } = await createTestDatabase());
      dataSource = await new DataSource(dataSourceOptions(url)).initialize();
    });

    afterAll(async () => {
      await dataSource.destroy();
      await drop();
    });

    it('TypeORM keeps its pg Pool as `driver.master`, and pg-pool keeps its options on `pool.options`', async () => {
      const pool = pgPool(dataSource);
      const options = (pool as unknown as { options?: PoolConfig }).options;

      expect({
        check: BROKEN("Named prepared statements on TypeORM's pool", 'driver.master'),
        isPool: pool instanceof Pool,
      }).toEqual({ check: expect.any(String), isPool: true });
      expect({
        check: BROKEN("Named prepared statements on TypeORM's pool", 'pool.options'),
        max: typeof options?.max,
        // Copied into a second pool's options; pg-pool keeps it, but not enumerable.
        passwordKept: options !== undefined && 'password' in options,
      }).toEqual({ check: expect.any(String), max: 'number', passwordKept: true });
    });

    it('pg parses a named statement once per connection', async () => {
      const pool = pgPool(dataSource);
      const client = await pool.connect();
      try {
        const statement = { name: 'hot_path_probe', text: 'SELECT $1::int + 1 AS n', values: [1] };
        await client.query(statement);
        await client.query({ ...statement, values: [2] });
        const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } })
          .connection.parsedStatements;
        expect({
          check: BROKEN("Named prepared statements on TypeORM's pool", 'connection.parsedStatements'),
          cached: parsed?.hot_path_probe,
        }).toEqual({ check: expect.any(String), cached: statement.text });

        // And PostgreSQL agrees: one prepared statement of that name on this connection.
        const { rows } = await client.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM pg_prepared_statements WHERE name = 'hot_path_probe'`,
        );
        expect(rows[0].count).toBe(1);
      } finally {
        client.release();
      }
    });

    it('a plain pg Client still accepts the options the second pool is built from', async () => {
      const options = (pgPool(dataSource) as unknown as { options: PoolConfig }).options;
      const client = new Client({ ...options, password: options.password });
      await client.connect();
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      await client.end();
      expect(rows).toEqual([{ one: 1 }]);
    });
  });
});
