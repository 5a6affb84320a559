import { CODE_FIELDS, NUMERIC_FIELDS, TEXT_FIELDS } from '../telemetry-fields';
import { TelemetryPoint } from './telemetry-point';
import {
  ADD_TO_HOURLY,
  BATCH_TO_HOURLY,
  HOURLY_VALUE_COLUMNS,
  hourlyFromRaw,
  RAW_ROLLUP_COLUMNS,
} from './telemetry-hourly';

/**
 * One statement for a whole batch: every column travels as one array parameter and `unnest` turns
 * them back into rows, so a batch of any size is a single statement of fixed shape. The raw
 * payloads travel as one JSON array, taken apart by position: as JSON text they need no quoting,
 * where a jsonb[] literal would escape every quote of every payload. A (source,
 * timestamp) already stored is skipped (idempotent storage). The rows it did store are added to
 * their hours in `telemetry_hourly` by the same statement, so the rollup commits with them.
 *
 * The last word on revocation: a row that came by a device transport is stored only if its source
 * still exists, is active and still takes that transport, as the statement's snapshot sees it. The
 * caches in front may lag a change by a few milliseconds; this cannot, so once the UPDATE or
 * DELETE that revoked a source has committed, no statement starting after it stores a row of that
 * source. Refused rows neither fail the batch (a deleted source is not a foreign-key error) nor
 * come back as stored: the statement also returns the (source, transport) pairs it refused, with
 * '' for rows that came by no transport.
 */
/** The columns that travel as arrays, one element per row. */
const arrayColumns = [
  'sun_source_id',
  'ts',
  'received_at',
  ...NUMERIC_FIELDS.map((field) => field.column),
  ...TEXT_FIELDS.map((field) => field.column),
  ...CODE_FIELDS.map((field) => field.column),
];
const columns = [...arrayColumns, 'raw'];

const parameterTypes = [
  'uuid[]',
  'timestamptz[]',
  'timestamptz[]',
  ...NUMERIC_FIELDS.map(() => 'float8[]'),
  ...TEXT_FIELDS.map(() => 'text[]'),
  // text[][] cannot hold rows of different lengths: codes travel as JSON arrays.
  ...CODE_FIELDS.map(() => 'jsonb[]'),
];

/**
 * After the array columns: the raw payloads (one JSON array), then the transport each row came by
 * (NULL: only the source's existence matters).
 */
const rawPayloads = `$${arrayColumns.length + 1}::jsonb`;
const viaIndex = arrayColumns.length;
const sourceIds = `$1::${parameterTypes[0]}`;
const vias = `$${arrayColumns.length + 2}::text[]`;

const selected = [
  ...arrayColumns.map((column, index) => {
    const value = `u.c${index}`;
    if (CODE_FIELDS.some((field) => field.column === column)) {
      return `CASE WHEN ${value} IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${value})) END`;
    }
    return value;
  }),
  // unnest's ordinality counts from 1, JSON array positions from 0.
  `${rawPayloads} -> (u.position - 1)::int`,
];

/**
 * Whether some hour of the batch gets several readings of an energy field: then every hour of the
 * batch is aggregated exactly (`hourlyFromRaw`), else by BATCH_TO_HOURLY's cheaper aggregates. A
 * condition on the whole batch, evaluated once: no join of the rows to their hours.
 */
const SEVERAL = `(SELECT bool_or(several) FROM batch_hours)`;

/**
 * The lock a batch holds on each of its sources until it commits: two batches of one source then
 * run one after the other, and the rollup's hour openings, recomputed at the end of a statement
 * (`refresh_telemetry_openings`), see the other batch's hours. Taken in id order, after the sort.
 * `rebuild_telemetry_hourly` takes the same lock.
 */
const SOURCE_WRITE_LOCK = (id: string) =>
  `pg_advisory_xact_lock(hashtext('telemetry-source'), hashtext(${id}::text))`;

// Both INSERTs take their rows in key order: concurrent batches (several api and ingestor
// processes) then lock the keys they share, raw and hourly, in the same order and cannot deadlock.
// `admitted` key-share locks its sources first, in id order, before any row is written: a DELETE
// of one of them then either waits for this batch, or this batch waits for it and skips the
// source once it is gone. Locked after the rows, as the foreign-key checks at the statement's end
// would, the two would each hold what the other's cascade or check needs, and deadlock. The lock
// does not conflict with an UPDATE of other columns (switching off, rotating a key).
export const INSERT_TELEMETRY_SQL = `
  WITH pairs AS (
    SELECT DISTINCT id, coalesce(via, '') AS via FROM unnest(${sourceIds}, ${vias}) AS t(id, via)
  ), admitted AS MATERIALIZED (
    SELECT s.id, p.via, ${SOURCE_WRITE_LOCK('s.id')} AS locked
      FROM pairs p
      JOIN sun_sources s
        ON s.id = p.id AND (p.via = '' OR (s.is_active AND s.connection_type = p.via))
     ORDER BY s.id
       FOR KEY SHARE OF s
  ), inserted AS (
    INSERT INTO telemetry (${columns.join(', ')})
    SELECT ${selected.join(', ')}
      FROM unnest(${parameterTypes.map((type, index) => `$${index + 1}::${type}`).join(', ')}, ${vias})
           WITH ORDINALITY AS u(${arrayColumns.map((_, index) => `c${index}`).join(', ')}, c${viaIndex}, position)
      JOIN admitted a ON a.id = u.c0 AND a.via = coalesce(u.c${viaIndex}, '')
     ORDER BY u.c0, u.c1
    ON CONFLICT (sun_source_id, ts) DO NOTHING
    RETURNING sun_source_id, ts, ${RAW_ROLLUP_COLUMNS.join(', ')}
  ), batch_hours AS (
    SELECT sun_source_id, date_trunc('hour', ts, 'UTC') AS hour, ${BATCH_TO_HOURLY.join(', ')}
      FROM inserted
     GROUP BY 1, 2
  ), hourly AS (
    INSERT INTO telemetry_hourly (sun_source_id, hour, ${HOURLY_VALUE_COLUMNS.join(', ')}, recount)
    SELECT h.*, false FROM (
      SELECT sun_source_id, hour, ${HOURLY_VALUE_COLUMNS.join(', ')} FROM batch_hours WHERE NOT ${SEVERAL}
      UNION ALL
      ${hourlyFromRaw(`(SELECT * FROM inserted WHERE ${SEVERAL}) t`)}
    ) h
     ORDER BY 1, 2
    ON CONFLICT (sun_source_id, hour) DO UPDATE SET ${ADD_TO_HOURLY.join(', ')}
  )
  SELECT sun_source_id, ts, NULL AS refused_via FROM inserted
  UNION ALL
  SELECT p.id, NULL, p.via FROM pairs p
   WHERE NOT EXISTS (SELECT 1 FROM admitted a WHERE a.id = p.id AND a.via = p.via)`;

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
    ...TEXT_FIELDS.map((field) => quotedArrayLiteral(points.map((point) => point.values[field.name]))),
    ...CODE_FIELDS.map((field) =>
      quotedArrayLiteral(
        points.map((point) => {
          const codes = point.values[field.name];
          return codes === null ? null : JSON.stringify(codes);
        }),
      ),
    ),
    `[${points.map((point) => JSON.stringify(point.raw)).join(',')}]`,
    points.map((point) => point.via ?? null),
  ];
}

/** A row of `INSERT_TELEMETRY_SQL`'s answer: a stored point, or (ts null) a refused source and transport. */
export interface InsertedOrRefused {
  sun_source_id: string;
  ts: Date | null;
  refused_via: string | null;
}

/**
 * `{"a","b\"c",NULL}` for elements of any text: each quoted, with `"` and `\` escaped by a
 * backslash, as pg writes a JavaScript array, in one pass over each element rather than two.
 */
function quotedArrayLiteral(elements: ReadonlyArray<string | null>): string {
  return `{${elements.map((element) => (element === null ? 'NULL' : `"${element.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
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
