import { CODE_FIELDS, NUMERIC_FIELDS, TEXT_FIELDS } from '../telemetry-fields';
import { TelemetryPoint } from './telemetry-point';
import { ADD_TO_HOURLY, HOURLY_VALUE_COLUMNS, RAW_ROLLUP_COLUMNS, RAW_TO_HOURLY } from './telemetry-hourly';

/**
 * One statement for a whole batch: every column travels as one array parameter and `unnest` turns
 * them back into rows, so a batch of any size is a single statement of fixed shape. A (source,
 * timestamp) already stored is skipped (idempotent storage). The rows it did store are added to
 * their hours in `telemetry_hourly` by the same statement, so the rollup commits with them.
 *
 * The last word on revocation: a row that came by a device transport is stored only if its source
 * still exists, is active and still takes that transport, as the statement's snapshot sees it. The
 * caches in front may lag a change by a few milliseconds; this cannot, so once the UPDATE or
 * DELETE that revoked a source has committed, no statement starting after it stores a row of that
 * source. Refused rows neither fail the batch (a deleted source is not a foreign-key error) nor
 * come back as stored: the statement also returns the (source, transport) pairs it refused.
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

/** Beside the columns: the transport each row came by (NULL: only the source's existence matters). */
const viaIndex = columns.length;
const via = `u.c${viaIndex}`;
const sourceIds = `$1::${parameterTypes[0]}`;
const vias = `$${viaIndex + 1}::text[]`;
/** What a source must be, at the statement's snapshot, for rows that came by `transport`. */
const sourceAdmits = (transport: string) =>
  `(${transport} IS NULL OR (s.is_active AND s.connection_type = ${transport}))`;

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
      FROM unnest(${[...parameterTypes, 'text[]'].map((type, index) => `$${index + 1}::${type}`).join(', ')})
           AS u(${[...columns, 'via'].map((_, index) => `c${index}`).join(', ')})
      JOIN sun_sources s ON s.id = u.c0 AND ${sourceAdmits(via)}
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
  SELECT sun_source_id, ts, NULL AS refused_via FROM inserted
  UNION ALL
  SELECT r.id, NULL, coalesce(r.via, '')
    FROM (SELECT DISTINCT id, via FROM unnest(${sourceIds}, ${vias}) AS t(id, via)) AS r
   WHERE NOT EXISTS (SELECT 1 FROM sun_sources s WHERE s.id = r.id AND ${sourceAdmits('r.via')})`;

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
    points.map((point) => point.via ?? null),
  ];
}

/** A row of `INSERT_TELEMETRY_SQL`'s answer: a stored point, or (ts null) a refused source and transport. */
export interface InsertedOrRefused {
  sun_source_id: string;
  ts: Date | null;
  refused_via: string | null;
}

/** The key under which a refused (source, transport) is looked up for each point of the batch. */
export function refusalKey(sunSourceId: string, via: string | null | undefined): string {
  return `${sunSourceId}|${via ?? ''}`;
}

/** `{a,NULL,b}` for elements that need no quoting in a PostgreSQL array: UUIDs, ISO instants, finite numbers. */
function arrayLiteral(elements: ReadonlyArray<string | number | null>): string {
  return `{${elements.map((element) => element ?? 'NULL').join(',')}}`;
}

export function pointKey(sunSourceId: string, ts: Date): string {
  return `${sunSourceId}|${ts.getTime()}`;
}
