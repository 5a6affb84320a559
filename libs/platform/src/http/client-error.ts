import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a refused connection may go on sending before it is cut. */
const DRAIN_MS = 2000;

/** Node's parser errors that have an answer of their own; any other is a 400. */
const ANSWERS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'Request header fields too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Request too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
};
const MALFORMED = { status: 400, message: 'Malformed request' };

/**
 * Answers a request that Node's HTTP parser refused before any route saw it (malformed, or a
 * header block over Node's 16 KB limit) with the API's `{ message }` body, then closes gently:
 * the answer, a FIN, and whatever the client still sends read and dropped for a moment. Node's
 * own handler destroys the connection right after its bare answer, and on Node 24 a client still
 * sending its request then gets a reset instead of that answer. For `server.on('clientError')`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, message } = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ message });
  // The parser has failed: what follows on this connection is no request any more.
  socket.removeAllListeners('data');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

/**
 * Answers a request whose `Expect` header asks for anything but `100-continue`, which no route
 * sees, with 417 and the API's `{ message }` body (Node's own answer has none). For
 * `server.on('checkExpectation')`.
 */
export function answerUnmetExpectation(_request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({ message: 'Expectation failed: the Expect header may only be 100-continue' });
  response.writeHead(417, {
    Connection: 'close',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}
