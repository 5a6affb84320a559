import express from 'express';
import pino from 'pino';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import request from 'supertest';
import { loggerOptions } from './logger.module';
import { requestLogging } from './request-log';

interface Line {
  level: number;
  app: string;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  responseTime: number;
  err?: { message: string };
}

/** An app answering `GET /status/:code` with that code, its lines kept in `lines`. */
function appLoggingAt(level: string, routine?: (req: IncomingMessage) => boolean) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Line);
      done();
    },
  });
  const logger = pino(loggerOptions({ logLevel: level }, 'test'), sink);
  const app = express();
  app.use(
    requestLogging(() => logger, {
      quiet: (req) => req.url === '/health',
      routine,
    }),
  );
  app.get('/status/:code', (req, res) => {
    res.status(Number(req.params.code)).json({ ok: true });
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  /** The lines, once `count` have been written. */
  const written = async (count: number) => {
    for (let waited = 0; lines.length < count && waited < 1000; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return lines;
  };
  return { app, written };
}

describe('requestLogging', () => {
  it('writes one line per request with its id, method, url, status and time, and echoes the id', async () => {
    const { app, written } = appLoggingAt('info');
    const response = await request(app)
      .get('/status/201?x=1')
      .set('X-Request-Id', 'trace-42')
      .set('Cookie', 'solar.sid=secret')
      .expect(201);
    expect(response.headers['x-request-id']).toBe('trace-42');
    const lines = await written(1);
    expect(lines).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        app: 'test',
        msg: 'request completed',
        req: { id: 'trace-42', method: 'GET', url: '/status/201?x=1' },
        res: { statusCode: 201 },
        responseTime: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it('logs the caller’s mistakes at warn and ours at error, naming the status', async () => {
    const { app, written } = appLoggingAt('info');
    await request(app).get('/status/404').expect(404);
    await request(app).get('/status/503').expect(503);
    const [notFound, failed] = await written(2);
    expect([notFound.level, notFound.msg, notFound.err]).toEqual([40, 'request completed', undefined]);
    expect([failed.level, failed.msg, failed.res.statusCode]).toEqual([50, 'request errored', 503]);
    expect(failed.err?.message).toBe('failed with status code 503');
  });

  it('writes routine requests that went well at debug, and their failures as any other', async () => {
    for (const level of ['info', 'debug']) {
      const { app, written } = appLoggingAt(level, (req) => req.url?.startsWith('/status/') ?? false);
      await request(app).get('/status/200').expect(200);
      await request(app).get('/status/404').expect(404);
      const lines = await written(level === 'debug' ? 2 : 1);
      expect(lines.map((line) => [line.level, line.res.statusCode])).toEqual(
        level === 'debug'
          ? [
              [20, 200],
              [40, 404],
            ]
          : [[40, 404]],
      );
    }
  });

  it('gives a new UUID when the caller’s X-Request-Id is not sane', async () => {
    const { app, written } = appLoggingAt('info');
    const response = await request(app).get('/status/200').set('X-Request-Id', 'has spaces').expect(200);
    const id = response.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await written(1))[0].req.id).toBe(id);
  });

  it('writes nothing below the configured level, and nothing for quiet paths', async () => {
    const { app, written } = appLoggingAt('warn');
    await request(app).get('/status/200').expect(200);
    const health = await request(app).get('/health').expect(200);
    expect(health.headers['x-request-id']).toEqual(expect.any(String));
    await request(app).get('/status/400').expect(400);
    const lines = await written(1);
    expect(lines.map((line) => [line.level, line.req.url])).toEqual([[40, '/status/400']]);
  });
});
