import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { TEST_SERVER_URL } from '@solar/testing';
import { PreparedQueries } from './prepared-queries';

/** Every kind of value the encoder treats apart, as PostgreSQL writes it. */
const VALUES = `
  SELECT * FROM (VALUES
    (1, 0.1::float8, 52.1::real, 7::int2, 9007199254740993::int8, 1.50::numeric, true,
     'plain'::text, 'quote " backslash \\ newline
tab	 é ☀ 😀'::varchar, '5a1f8e7c-3b2d-4c6e-9f0a-1b2c3d4e5f60'::uuid,
     ARRAY['F01', NULL, 'with "quote"', 'comma,brace}']::text[], '2026-03-29T01:30:00.123Z'::timestamptz),
    (2, 1e-7::float8, '-0'::real, '-32768'::int2, -1::int8, 'NaN'::numeric, false,
     '', NULL, NULL, ARRAY[]::text[], NULL),
    (3, 1e21::float8, 'Infinity'::real, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, '-infinity'::timestamptz),
    (4, 'NaN'::float8, '-Infinity'::real, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL),
    (5, -0.000123456789012345::float8, 3.4028235e38::real, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL)
  ) AS v("n", "double", "single", "small", "big", "decimal", "flag",
         "text", "varchar", "uuid", "codes", "at")
  WHERE "n" >= $1
  ORDER BY "n"`;

describe('PreparedQueries.queryJson', () => {
  let pool: Pool;
  let prepared: PreparedQueries;

  beforeAll(() => {
    pool = new Pool({ connectionString: TEST_SERVER_URL, max: 1 });
    prepared = new PreparedQueries({ driver: { master: pool } } as unknown as DataSource);
  });

  afterAll(() => pool.end());

  it('is the JSON that JSON.stringify makes of the parsed rows, value for value', async () => {
    const rows = await prepared.query(VALUES, [1]);
    const json = await prepared.queryJson(VALUES, [1]);

    expect(rows).toHaveLength(5);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(rows)));
  });

  it('keeps the columns in their order and writes numbers as PostgreSQL does', async () => {
    const json = await prepared.queryJson(`SELECT 2.5::float8 AS "b", 'x"y'::text AS "a", NULL::int AS "c"`);

    expect(json).toBe('[{"b":2.5,"a":"x\\"y","c":null}]');
  });

  it('writes what JSON has no number for as null, and -0 as 0', async () => {
    const json = await prepared.queryJson(VALUES, [2]);
    const [second, third, fourth] = JSON.parse(json) as Array<Record<string, unknown>>;

    expect(Object.is(second.single, 0)).toBe(true);
    expect(third.single).toBeNull();
    expect(fourth.double).toBeNull();
    expect(fourth.single).toBeNull();
    // numeric and int8 stay strings, as pg reads them
    expect(second.decimal).toBe('NaN');
    expect(second.big).toBe('-1');
  });

  it('is an empty array when there are no rows', async () => {
    expect(await prepared.queryJson(VALUES, [6])).toBe('[]');
  });
});
