import { Header, StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * For handlers that return an already encoded JSON document (`EncodedJson`, bytes): the type
 * `res.json` would have given the value. The app must send bytes as they are
 * (`ApiExpressAdapter`).
 */
export const SendsEncodedJson = () => Header('Content-Type', JSON_CONTENT_TYPE);

/**
 * A JSON document streamed as PostgreSQL writes it (`JsonArrayStream`), as a handler's answer.
 * Once its first bytes are out, a failure can only cut it short: the connection is closed (so
 * the client cannot take the part for the whole) and Nest logs the error.
 */
export function streamedJson(document: Readable): StreamableFile {
  return new StreamableFile(document, { type: JSON_CONTENT_TYPE }).setErrorHandler((_error, response) =>
    response.destroy?.(),
  );
}
