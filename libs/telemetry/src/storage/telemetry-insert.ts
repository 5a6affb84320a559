import { CODE_FIELDS, NUMERIC_FIELDS, TEXT_FIELDS } from '../telemetry-fields';
import { TelemetryPoint } from './telemetry-point';
import { ADD_TO_HOURLY, HOURLY_VALUE_COLUMNS, RAW_ROLLUP_COLUMNS, RAW_TO_HOURLY } from './telemetry-hourly';

/**
 * One statement for a whole batch: every column travels as one array parameter and `unnest` turns
 * them back into rows, so a batch of any size is a single statement of fixed shape. Rows of a
 * source deleted meanwhile are dropped by the join instead of failing the batch on the foreign
 * key, and a (source, timestamp) already stored is skipped (idempotent storage). The rows it did
 * store are added to their hours in `telemetry_hourly` by the same statement, so the rollup
 * commits with them.
 */
const columns = [
  'sun_source_id',
  'ts',
  'received_at',
  ...NUMERIC_FIELDS.map((field) => field.column),
  ...TEXT_FIELDS.map((field) => field.column),
  ...CODE_FIELDS.map((field) => field.column),
  'raw',
];

const parameterTypes = [
  'uuid[]',
  'timestamptz[]',
  'timestamptz[]',
  ...NUMERIC_FIELDS.map(() => 'float8[]'),
  ...TEXT_FIELDS.map(() => 'text[]'),
  // text[][] cannot hold rows of different lengths: codes travel as JSON arrays.
  ...CODE_FIELDS.map(() => 'jsonb[]'),
  'jsonb[]',
];

const selected = columns.map((column, index) => {
  const value = `u.c${index}`;
  if (CODE_FIELDS.some((field) => field.column === column)) {
    return `CASE WHEN ${value} IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${value})) END`;
  }
  return value;
});

// Both INSERTs take their rows in key order: concurrent batches (several api and ingestor
// processes) then lock the keys they share, raw and hourly, in the same order and cannot deadlock.
export const INSERT_TELEMETRY_SQL = `
  WITH inserted AS (
    INSERT INTO telemetry (${columns.join(', ')})
    SELECT ${selected.join(', ')}
      FROM unnest(${parameterTypes.map((type, index) => `$${index + 1}::${type}`).join(', ')})
           AS u(${columns.map((_, index) => `c${index}`).join(', ')})
      JOIN sun_sources s ON s.id = u.c0
     ORDER BY u.c0, u.c1
    ON CONFLICT (sun_source_id, ts) DO NOTHING
    RETURNING sun_source_id, ts, ${RAW_ROLLUP_COLUMNS.join(', ')}
  ), hourly AS (
    INSERT INTO telemetry_hourly (sun_source_id, hour, ${HOURLY_VALUE_COLUMNS.join(', ')})
    SELECT sun_source_id, date_trunc('hour', ts, 'UTC'), ${RAW_TO_HOURLY.join(', ')}
      FROM inserted
     GROUP BY 1, 2
     ORDER BY 1, 2
    ON CONFLICT (sun_source_id, hour) DO UPDATE SET ${ADD_TO_HOURLY.join(', ')}
  )
  SELECT sun_source_id, ts FROM inserted`;

/**
 * The array parameters of `INSERT_TELEMETRY_SQL` for `points`, column by column. Ids, instants
 * and numbers are written as array literals here: none of them needs quoting, which spares the
 * driver's per-element escaping (and its local-time formatting of dates).
 */
export function insertParameters(points: readonly TelemetryPoint[]): unknown[] {
  return [
    arrayLiteral(points.map((point) => point.sunSourceId)),
    arrayLiteral(points.map((point) => point.ts.toISOString())),
    arrayLiteral(points.map((point) => point.receivedAt.toISOString())),
    ...NUMERIC_FIELDS.map((field) => arrayLiteral(points.map((point) => point.values[field.name]))),
    ...TEXT_FIELDS.map((field) => points.map((point) => point.values[field.name])),
    ...CODE_FIELDS.map((field) =>
      points.map((point) => {
        const codes = point.values[field.name];
        return codes === null ? null : JSON.stringify(codes);
      }),
    ),
    points.map((point) => JSON.stringify(point.raw)),
  ];
}

/** `{a,NULL,b}` for elements that need no quoting in a PostgreSQL array: UUIDs, ISO instants, finite numbers. */
function arrayLiteral(elements: ReadonlyArray<string | number | null>): string {
  return `{${elements.map((element) => element ?? 'NULL').join(',')}}`;
}

export function pointKey(sunSourceId: string, ts: Date): string {
  return `${sunSourceId}|${ts.getTime()}`;
}
