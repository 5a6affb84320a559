import type { Express } from 'express';
import { IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { ApiExpressAdapter } from './api-express-adapter';

/** One GET on a fresh connection: the status and the body's text. */
function get(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('ApiExpressAdapter', () => {
  let adapter: ApiExpressAdapter;
  let server: Server;
  let port: number;
  /** What the server's first listener saw: the prototypes before Express ran. */
  const seen: Array<{ request: object | null; response: object | null }> = [];

  beforeAll(async () => {
    adapter = new ApiExpressAdapter();
    adapter.initHttpServer({});
    const app = adapter.getInstance<Express>();
    app.get('/bytes', (_request, response) => void adapter.reply(response, Buffer.from('{"a":"é"}'), 201));
    app.get('/object', (_request, response) => void adapter.reply(response, { a: 1 }));
    server = adapter.getHttpServer();
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) =>
      seen.push({ request: Object.getPrototypeOf(request), response: Object.getPrototypeOf(response) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("builds requests and responses on Express's prototypes, so Express never changes them", async () => {
    seen.length = 0;
    expect((await get(port, '/object')).status).toBe(200);
    const app = adapter.getInstance<Express>();
    expect(seen).toEqual([{ request: app.request, response: app.response }]);
  });

  it('sends a Buffer as it is, with the status given', async () => {
    expect(await get(port, '/bytes')).toEqual({ status: 201, text: '{"a":"é"}' });
  });

  it('sends anything else as Nest does: as JSON', async () => {
    expect(await get(port, '/object')).toEqual({ status: 200, text: '{"a":1}' });
  });

  it("answers a header block over Node's limit with 431 and the API's body, where a client still sending reads it", async () => {
    const path = `/object?search=${'x'.repeat(100 * 1024)}`;
    const answer = await new Promise<{ text: string; error?: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`),
      );
      let text = '';
      let error: string | undefined;
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code));
      socket.on('close', () => resolve({ text, error }));
    });
    expect(answer.error).toBeUndefined();
    expect(answer.text.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.text.split('\r\n\r\n')[1]).toBe('{"message":"Request header fields too large"}');
    expect(await get(port, path)).toEqual({
      status: 431,
      text: '{"message":"Request header fields too large"}',
    });
  });

  it('answers a malformed request line with 400 and the API body', async () => {
    const text = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('close', () => resolve(received));
    });
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(text.split('\r\n\r\n')[1]).toBe('{"message":"Malformed request"}');
  });

  it('answers an Expect header it cannot meet with 417 and the API body, and 100-continue as usual', async () => {
    const ask = (expect: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        request(
          { host: '127.0.0.1', port, path: '/object', agent: false, headers: { Expect: expect } },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        )
          .on('error', reject)
          .end();
      });
    expect(await ask('999-weird')).toEqual({
      status: 417,
      text: '{"message":"Expectation failed: the Expect header may only be 100-continue"}',
    });
    expect(await ask('100-continue')).toEqual({ status: 200, text: '{"a":1}' });
  });
});
