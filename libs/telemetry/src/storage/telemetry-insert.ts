import { CODE_FIELDS, NUMERIC_FIELDS, TEXT_FIELDS } from '../telemetry-fields';
import { TelemetryPoint } from './telemetry-point';

/**
 * One INSERT for a whole batch: every column travels as one array parameter and `unnest` turns
 * them back into rows, so a batch of any size is a single statement of fixed shape. Rows of a
 * source deleted meanwhile are dropped by the join instead of failing the batch on the foreign
 * key, and a (source, timestamp) already stored is skipped (idempotent storage).
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

export const INSERT_TELEMETRY_SQL = `
  INSERT INTO telemetry (${columns.join(', ')})
  SELECT ${selected.join(', ')}
    FROM unnest(${parameterTypes.map((type, index) => `$${index + 1}::${type}`).join(', ')})
         AS u(${columns.map((_, index) => `c${index}`).join(', ')})
    JOIN sun_sources s ON s.id = u.c0
  ON CONFLICT (sun_source_id, ts) DO NOTHING
  RETURNING sun_source_id, ts`;

/** The array parameters of `INSERT_TELEMETRY_SQL` for `points`, column by column. */
export function insertParameters(points: readonly TelemetryPoint[]): unknown[] {
  return [
    points.map((point) => point.sunSourceId),
    points.map((point) => point.ts),
    points.map((point) => point.receivedAt),
    ...NUMERIC_FIELDS.map((field) => points.map((point) => point.values[field.name])),
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

export function pointKey(sunSourceId: string, ts: Date): string {
  return `${sunSourceId}|${ts.getTime()}`;
}
