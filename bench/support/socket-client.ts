import { connect, Socket } from 'node:net';

/**
 * The load generator's HTTP/1.1 client: one keep-alive connection, one request at a time (as a
 * device sends), the request written in one piece and the answer read with just enough parsing
 * for a status and a body.
 *
 * Why not Node's `http` client or autocannon: on a 2-core machine the generator shares the cores
 * with the server it measures, and what it spends is taken from the server. Closed loop against a
 * bare Node server on loopback (256 connections, ~300-byte bodies), the generator spent per
 * request: `http.request` with a keep-alive agent 77 µs, autocannon ~120 µs (with this bench's
 * bookkeeping), this client 21 µs. Servers answering `Connection: close`, `Expect` or an
 * upgrade are not supported: the apps and the bare server do none of that.
 *
 * A connection idle for IDLE_CLOSE_MS is closed and opened anew before its next request, as
 * HTTP clients do (undici's keep-alive threshold): a Node server closes a connection idle for
 * its `keepAliveTimeout` (5 s by default), and a request written as that close crosses it
 * fails with nothing answered.
 */
export interface SocketAnswer {
  status: number;
  body: string;
}

const HEAD_END = '\r\n\r\n';
/** A second below the 5 s a Node server keeps an idle connection open. */
const IDLE_CLOSE_MS = 4000;

export class SocketConnection {
  private socket: Socket | undefined;
  private connecting: Promise<void> | undefined;
  /** Bytes received and not yet parsed, latin1 so that one char is one byte. */
  private received = '';
  /** When the last answer arrived (or the connection opened): `performance.now()`. */
  private idleSince = 0;
  private waiting:
    | { resolve: (answer: SocketAnswer) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
    | undefined;

  constructor(
    private readonly port: number,
    private readonly timeoutMs: number,
  ) {}

  /** Sends `POST path` with a JSON body; resolves with the answer, rejects on error or timeout. */
  async post(path: string, body: string): Promise<SocketAnswer> {
    if (this.waiting) throw new Error('one request at a time per connection');
    if (this.socket && performance.now() - this.idleSince > IDLE_CLOSE_MS) this.close();
    if (!this.socket) await this.open();
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new TimeoutError()), this.timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.socket!.write(head + body);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Promise<void> {
    this.connecting ??= new Promise<void>((resolve, reject) => {
      const socket = connect(this.port, '127.0.0.1');
      socket.setNoDelay(true);
      socket.setEncoding('latin1');
      socket.once('connect', () => {
        this.socket = socket;
        this.received = '';
        this.idleSince = performance.now();
        resolve();
      });
      socket.on('data', (chunk: string) => this.read(chunk));
      socket.on('error', (error) => (this.socket === socket ? this.fail(error) : reject(error)));
      socket.on('close', () => {
        if (this.socket === socket) this.fail(new Error('connection closed'));
      });
    }).finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private read(chunk: string): void {
    this.received += chunk;
    const headEnd = this.received.indexOf(HEAD_END);
    if (headEnd < 0 || !this.waiting) return;
    const head = this.received.slice(0, headEnd);
    const bodyStart = headEnd + HEAD_END.length;
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let body: string;
    if (length) {
      const end = bodyStart + Number(length[1]);
      if (this.received.length < end) return;
      body = this.received.slice(bodyStart, end);
      this.received = this.received.slice(end);
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const chunked = dechunk(this.received, bodyStart);
      if (!chunked) return;
      body = chunked.body;
      this.received = this.received.slice(chunked.end);
    } else {
      return this.fail(new Error('an answer without a length'));
    }
    const { resolve, timer } = this.waiting;
    this.waiting = undefined;
    this.idleSince = performance.now();
    clearTimeout(timer);
    resolve({ status: Number(head.slice(9, 12)), body: Buffer.from(body, 'latin1').toString('utf8') });
  }

  /** The request under way fails and the connection goes; the next request opens a new one. */
  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.close();
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting.reject(error);
  }
}

export class TimeoutError extends Error {
  constructor() {
    super('no answer in time');
  }
}

/** The body of a chunked answer starting at `from`, and where it ends; undefined: incomplete. */
function dechunk(data: string, from: number): { body: string; end: number } | undefined {
  let body = '';
  let at = from;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.slice(at, lineEnd), 16);
    const chunkStart = lineEnd + 2;
    if (size === 0) {
      const end = data.indexOf(HEAD_END, lineEnd);
      return end < 0 ? undefined : { body, end: end + HEAD_END.length };
    }
    if (data.length < chunkStart + size + 2) return undefined;
    body += data.slice(chunkStart, chunkStart + size);
    at = chunkStart + size + 2;
  }
}
