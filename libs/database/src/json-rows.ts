import { Readable } from 'node:stream';

/**
 * A JSON document already encoded as UTF-8, to be sent as it is. Bytes rather than a string: a
 * large answer joined from rows as a string cost more to flatten and encode on its way to the
 * socket (~2 ms for 1,000 points) than PostgreSQL took to write it.
 */
export type EncodedJson = Buffer & { readonly __encodedJson: unique symbol };

const encoded = (text: string): EncodedJson => Buffer.from(text, 'utf8') as EncodedJson;

/** `JSON.stringify(value)`, encoded, for handlers whose other answers PostgreSQL encodes. */
export const encodeJson = (value: unknown): EncodedJson => encoded(JSON.stringify(value));

/** The encoded object `object` with one more key, last, whose value is encoded already. */
export function withEncodedMember(object: EncodedJson, key: string, value: EncodedJson): EncodedJson {
  const empty = object.length === 2;
  const opening = object.subarray(0, -1);
  return Buffer.concat([
    opening,
    encoded(`${empty ? '' : ','}${JSON.stringify(key)}:`),
    value,
    encoded('}'),
  ]) as EncodedJson;
}

/**
 * One key of an object that PostgreSQL writes: its SQL expression, and whether that is a number
 * (double precision or integer, finite: every stored figure is bounded at ingestion) or any
 * other value that pg reads as JSON.stringify would write it: text, text[], boolean (a timestamp
 * as `to_char` text, since `to_json` writes its offset where JavaScript writes Z).
 */
export interface JsonColumn {
  key: string;
  sql: string;
  kind: 'number' | 'value';
}

/** The select list `sql AS "key", …`: rows that pg reads into objects with these keys. */
export function selectList(columns: readonly JsonColumn[]): string {
  return columns.map((column) => `${column.sql} AS "${column.key}"`).join(', ');
}

/**
 * One SQL expression: the row as the JSON text of the object `selectList` would give, keys in
 * order, as `JSON.stringify` writes it. PostgreSQL writes a double as the shortest text that
 * reads back exactly (every connection asks for it: `dataSourceOptions`), which JSON takes as it is (`+ 0` turns -0 into 0, as JSON.stringify
 * does); `to_json` quotes and escapes the rest. The api then joins rows instead of parsing every
 * number into a double only to format it back: most of the cost of a large answer.
 */
export function jsonObject(columns: readonly JsonColumn[]): string {
  const unsafe = columns.find((column) => !/^\w+$/.test(column.key));
  if (unsafe) throw new Error(`JSON key ${unsafe.key} would need quoting`);
  const parts = columns.flatMap((column, index) => [
    `'${index === 0 ? '{' : ','}"${column.key}":'`,
    column.kind === 'number'
      ? `coalesce((${column.sql} + 0)::text, 'null')`
      : `coalesce(to_json(${column.sql})::text, 'null')`,
  ]);
  return `concat(${parts.join(', ')}, '}')`;
}

/**
 * How the rows of a statement make one JSON document: `array`, each row one `jsonObject`; or
 * `object`, each row one member (`jsonMember`).
 */
export type JsonRowsShape = 'array' | 'object';

/** One SQL expression: the member `"key":object` of a JSON object, `key` any text expression. */
export function jsonMember(key: string, object: string): string {
  return `concat(to_json((${key})::text)::text, ':', ${object})`;
}

const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT, COMMA] = Buffer.from('[]{},');

/**
 * The rows of a statement selecting one `jsonObject` (or `jsonMember`) each, as one document:
 * each row written once, straight into the bytes that are sent.
 */
export function jsonRowsOf(
  rows: ReadonlyArray<readonly [string]>,
  shape: JsonRowsShape = 'array',
): EncodedJson {
  const [open, close] = shape === 'array' ? [OPEN_ARRAY, CLOSE_ARRAY] : [OPEN_OBJECT, CLOSE_OBJECT];
  return joinedRows(rows, open, close) as EncodedJson;
}

/** The bytes `first`, then `rows` joined by commas, then `last` if given. */
function joinedRows(rows: ReadonlyArray<readonly [string]>, first: number, last?: number): Buffer {
  let size = 1 + Math.max(rows.length - 1, 0) + (last === undefined ? 0 : 1);
  for (const [row] of rows) size += Buffer.byteLength(row, 'utf8');
  const bytes = Buffer.allocUnsafe(size);
  bytes[0] = first;
  let at = 1;
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    at += bytes.write(rows[i][0], at, 'utf8');
  }
  if (last !== undefined) bytes[at] = last;
  return bytes;
}

/**
 * The rows of a statement selecting one `jsonObject` each, as a JSON array sent while PostgreSQL
 * is still writing it (`PreparedQueries.streamJson`). Rows come in bursts, one per read of the
 * socket: each burst becomes one chunk once pg has parsed it, so the answer crosses the api's
 * connection while the database's is still carrying the rest. It does not wait for its reader:
 * what it holds is bounded by the statement's own limit.
 */
export class JsonArrayStream extends Readable {
  private burst: Array<readonly [string]> = [];
  private opened = false;

  override _read(): void {
    // Rows are pushed as they arrive.
  }

  add(row: readonly [string]): void {
    if (this.destroyed) return;
    this.burst.push(row);
    if (this.burst.length === 1) queueMicrotask(() => this.flush());
  }

  /** Every row has been added: closes the array. */
  finish(): void {
    if (this.destroyed) return;
    this.flush();
    this.push(this.opened ? Buffer.of(CLOSE_ARRAY) : Buffer.of(OPEN_ARRAY, CLOSE_ARRAY));
    this.push(null);
  }

  private flush(): void {
    if (this.burst.length === 0 || this.destroyed) return;
    this.push(joinedRows(this.burst, this.opened ? COMMA : OPEN_ARRAY));
    this.opened = true;
    this.burst = [];
  }
}
