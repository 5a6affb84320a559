import type { Readable } from 'node:stream';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { TEST_SERVER_URL } from '@solar/testing';
import { JsonColumn, jsonMember, jsonObject, selectList } from './json-rows';
import { PreparedQueries } from './prepared-queries';

/** Every kind of value the api has PostgreSQL encode, with the awkward ones of each. */
const VALUES = `(VALUES
    (1, 0.1::float8, 7::int2, 2147483647, 'plain'::text,
     'quote " backslash \\ newline
tab	 é ☀ 😀 </script>'::varchar, '5a1f8e7c-3b2d-4c6e-9f0a-1b2c3d4e5f60'::uuid,
     ARRAY['F01', NULL, 'with "quote"', 'comma,brace}']::text[], true),
    (2, 1e-7::float8, '-32768'::int2, -1, '', NULL, NULL, ARRAY[]::text[], false),
    (3, 1e21::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, '-0'::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (5, -0.000123456789012345::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (6, 5e-324::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (7, 1.7976931348623157e308::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (8, 123456789.123::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (9, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
  ) AS v(n, double, small, whole, plain, escaped, id, codes, flag)`;

const COLUMNS: JsonColumn[] = [
  { key: 'n', sql: 'v.n', kind: 'number' },
  { key: 'double', sql: 'v.double', kind: 'number' },
  { key: 'small', sql: 'v.small', kind: 'number' },
  { key: 'whole', sql: 'v.whole', kind: 'number' },
  { key: 'plain', sql: 'v.plain', kind: 'value' },
  { key: 'escaped', sql: 'v.escaped', kind: 'value' },
  { key: 'id', sql: 'v.id', kind: 'value' },
  { key: 'codes', sql: 'v.codes', kind: 'value' },
  { key: 'flag', sql: 'v.flag', kind: 'value' },
];

describe('jsonObject, through PreparedQueries.queryJson', () => {
  let pool: Pool;
  let prepared: PreparedQueries;

  beforeAll(() => {
    pool = new Pool({ connectionString: TEST_SERVER_URL, max: 1 });
    prepared = new PreparedQueries({ driver: { master: pool } } as unknown as DataSource);
  });

  afterAll(() => pool.end());

  it('writes what JSON.stringify writes of the rows pg reads, key for key and value for value', async () => {
    const rows = await prepared.query(
      `SELECT ${selectList(COLUMNS)} FROM ${VALUES} WHERE v.n >= $1 ORDER BY v.n`,
      [1],
    );
    const json = await prepared.queryJson(
      `SELECT ${jsonObject(COLUMNS)} FROM ${VALUES} WHERE v.n >= $1 ORDER BY v.n`,
      [1],
    );

    expect(rows).toHaveLength(9);
    const parsed = JSON.parse(json.toString('utf8')) as unknown[];
    expect(parsed).toEqual(JSON.parse(JSON.stringify(rows)));
    expect(parsed.map((row) => Object.keys(row as object))).toEqual(
      rows.map((row) => Object.keys(row as object)),
    );
  });

  it('writes -0 as 0, as JSON.stringify does', async () => {
    const json = await prepared.queryJson(`SELECT ${jsonObject(COLUMNS)} FROM ${VALUES} WHERE v.n = $1`, [4]);

    expect(json.toString('utf8')).toBe(
      '[{"n":4,"double":0,"small":null,"whole":null,' +
        '"plain":null,"escaped":null,"id":null,"codes":null,"flag":null}]',
    );
  });

  it('is an empty array when there are no rows', async () => {
    const json = await prepared.queryJson(`SELECT ${jsonObject(COLUMNS)} FROM ${VALUES} WHERE v.n > $1`, [9]);

    expect(json.toString('utf8')).toBe('[]');
  });

  it('as members keyed by any text, writes what JSON.stringify writes of Object.fromEntries', async () => {
    const rows = await prepared.query<{ n: number }>(
      `SELECT ${selectList(COLUMNS)} FROM ${VALUES} WHERE v.n >= $1 ORDER BY v.n`,
      [1],
    );
    // Keys as awkward as the values (quotes, backslashes, newlines, non-ASCII); none integer-like,
    // which JavaScript would order first.
    const key = `'k' || v.n || coalesce(v.escaped, v.plain, '')`;
    const keys = await prepared.query<{ key: string }>(
      `SELECT ${key} AS key FROM ${VALUES} WHERE v.n >= $1 ORDER BY v.n`,
      [1],
    );
    const json = await prepared.queryJson(
      `SELECT ${jsonMember(key, jsonObject(COLUMNS))} FROM ${VALUES} WHERE v.n >= $1 ORDER BY v.n`,
      [1],
      'object',
    );

    const expected = Object.fromEntries(rows.map((row, i) => [keys[i].key, row]));
    const none = await prepared.queryJson(
      `SELECT ${jsonMember(key, '1')} FROM ${VALUES} WHERE v.n > $1`,
      [9],
      'object',
    );

    expect(JSON.parse(json.toString('utf8'))).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(Object.keys(JSON.parse(json.toString('utf8')) as object)).toEqual(keys.map((row) => row.key));
    expect(none.toString('utf8')).toBe('{}');
  });

  it('refuses a key that would need quoting', () => {
    expect(() => jsonObject([{ key: 'a"b', sql: '1', kind: 'number' }])).toThrow(
      'JSON key a"b would need quoting',
    );
  });
});

describe('PreparedQueries.streamJson', () => {
  let pool: Pool;
  let prepared: PreparedQueries;

  // 20,000 rows of ~70 bytes: 1.4 MB, which reaches the api in many reads of the socket.
  const MANY = `SELECT ${jsonObject([
    { key: 'n', sql: 'g.n', kind: 'number' },
    { key: 'label', sql: `'row ' || g.n || ' ☀'`, kind: 'value' },
    { key: 'half', sql: 'g.n / 2.0::float8', kind: 'number' },
  ])} FROM generate_series(1, $1::int) AS g(n) ORDER BY g.n`;

  beforeAll(() => {
    pool = new Pool({ connectionString: TEST_SERVER_URL, max: 1 });
    prepared = new PreparedQueries({ driver: { master: pool } } as unknown as DataSource);
  });

  afterAll(() => pool.end());

  const read = async (stream: Readable): Promise<{ text: string; chunks: number }> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { text: Buffer.concat(chunks).toString('utf8'), chunks: chunks.length };
  };

  it('sends the bytes queryJson would, in chunks as the rows arrive', async () => {
    const whole = await prepared.queryJson(MANY, [20_000]);
    const streamed = await read(await prepared.streamJson(MANY, [20_000]));

    expect(streamed.text).toBe(whole.toString('utf8'));
    expect((JSON.parse(streamed.text) as Array<{ n: number }>).map((row) => row.n)).toEqual(
      Array.from({ length: 20_000 }, (_, i) => i + 1),
    );
    expect(streamed.chunks).toBeGreaterThan(2);
  });

  it('is [] without rows, and one row without a comma', async () => {
    expect((await read(await prepared.streamJson(MANY, [0]))).text).toBe('[]');
    expect((await read(await prepared.streamJson(MANY, [1]))).text).toBe(
      '[{"n":1,"label":"row 1 ☀","half":0.5}]',
    );
  });

  it('rejects when the statement fails before its first row, and the pool goes on', async () => {
    await expect(prepared.streamJson(`SELECT (1 / ($1::int - 1))::text`, [1])).rejects.toThrow(
      'division by zero',
    );

    expect((await read(await prepared.streamJson(MANY, [2]))).text).toBe(
      '[{"n":1,"label":"row 1 ☀","half":0.5},{"n":2,"label":"row 2 ☀","half":1}]',
    );
  });

  it('fails the stream when the statement fails after rows were sent', async () => {
    const failingLate = `SELECT (CASE WHEN g.n < $1 THEN g.n ELSE 1 / (g.n - g.n) END)::text
                           FROM generate_series(1, $1::int) AS g(n)`;
    const stream = await prepared.streamJson(failingLate, [200_000]);

    await expect(read(stream)).rejects.toThrow('division by zero');
    expect((await read(await prepared.streamJson(MANY, [1]))).text).toBe(
      '[{"n":1,"label":"row 1 ☀","half":0.5}]',
    );
  });
});
