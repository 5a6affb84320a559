/** A JSON document already encoded, to be sent as it is. */
export type JsonText = string & { readonly __encodedJson: unique symbol };

/** `JSON.stringify(value)`, for handlers whose other answers PostgreSQL encodes. */
export const encodeJson = (value: unknown): JsonText => JSON.stringify(value) as JsonText;

/** The encoded object `object` with one more key, last, whose value is encoded already. */
export function withEncodedMember(object: JsonText, key: string, value: JsonText): JsonText {
  const separator = object === '{}' ? '' : ',';
  return `${object.slice(0, -1)}${separator}${JSON.stringify(key)}:${value}}` as JsonText;
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

/** The rows of a statement selecting one `jsonObject` (or `jsonMember`) each, as one document. */
export function jsonRowsOf(rows: ReadonlyArray<readonly [string]>, shape: JsonRowsShape = 'array'): JsonText {
  const [open, close] = shape === 'array' ? ['[', ']'] : ['{', '}'];
  let json = open;
  for (let i = 0; i < rows.length; i++) json += i === 0 ? rows[i][0] : `,${rows[i][0]}`;
  return `${json}${close}` as JsonText;
}
