import {
  CODE_FIELDS,
  CodeField,
  NUMERIC_FIELDS,
  NumericField,
  TelemetryValues,
  TEXT_FIELDS,
  TextField,
} from '../telemetry-fields';

export interface ExportField {
  name: NumericField | TextField | CodeField;
  /** The storage column. */
  column: string;
  /** Unit of a numeric field, empty for the others. */
  unit: string;
}

/** Every field of the field table, in its order: the columns after `timestamp` in both formats. */
export const EXPORT_FIELDS: readonly ExportField[] = [
  ...NUMERIC_FIELDS.map(({ name, column, unit }) => ({ name, column, unit })),
  ...TEXT_FIELDS.map(({ name, column }) => ({ name, column, unit: '' })),
  ...CODE_FIELDS.map(({ name, column }) => ({ name, column, unit: '' })),
];

/** The header row of both formats. */
export const EXPORT_HEADER: readonly string[] = ['timestamp', ...EXPORT_FIELDS.map((field) => field.name)];

const NUMERIC_FIELD_COUNT = NUMERIC_FIELDS.length;

/** Separator of fault and warning codes inside one cell. */
export const CODE_SEPARATOR = ';';

/**
 * One record as the export cursor delivers it. The driver's cost is per column, so the 24
 * numbers travel as one text: each in PostgreSQL's shortest round-trip form (the digits of
 * JavaScript's `String(n)`), comma-separated, empty for null. That triples the rows per second.
 */
export type ExportRow = [
  /** The timestamp, milliseconds since the epoch. */
  epochMs: number,
  /** Every numeric field in NUMERIC_FIELDS order. */
  numbers: string,
  operatingMode: string | null,
  deviceStatus: string | null,
  /** Joined with CODE_SEPARATOR; '' for none reported, null for unknown. */
  faultCodes: string | null,
  warningCodes: string | null,
];

/** The SELECT list whose rows are ExportRows, for the telemetry table aliased `alias`. */
export function exportSelectList(alias: string): string {
  const numbers = NUMERIC_FIELDS.map((field) => `${alias}.${field.column}`).join(', ');
  return [
    `floor(extract(epoch FROM ${alias}.ts) * 1000)::float8`,
    `array_to_string(ARRAY[${numbers}]::float8[], ',', '')`,
    ...TEXT_FIELDS.map((field) => `${alias}.${field.column}`),
    ...CODE_FIELDS.map((field) => `array_to_string(${alias}.${field.column}, '${CODE_SEPARATOR}')`),
  ].join(', ');
}

/**
 * Splits the numbers of an ExportRow into `values` (NaN where there is none) and their texts
 * into `texts` ('' where there is none). Typed arrays and reused buffers: this runs
 * 24 times per record.
 */
export function readExportNumbers(numbers: string, values: Float64Array, texts: string[]): void {
  let start = 0;
  for (let index = 0; index < NUMERIC_FIELD_COUNT; index++) {
    let end = numbers.indexOf(',', start);
    if (end < 0) end = numbers.length;
    if (end === start) {
      values[index] = Number.NaN;
      texts[index] = '';
    } else {
      const text = numbers.slice(start, end);
      values[index] = Number(text);
      texts[index] = text;
    }
    start = end + 1;
  }
}

/** The ExportRow the database would deliver for these values: fixtures for tests. */
export function toExportRow(ts: Date, values: Partial<TelemetryValues>): ExportRow {
  const codes = (list: string[] | null | undefined) => (list ? list.join(CODE_SEPARATOR) : null);
  return [
    ts.getTime(),
    NUMERIC_FIELDS.map((field) => {
      const value = values[field.name];
      return value === null || value === undefined ? '' : String(value);
    }).join(','),
    values.operatingMode ?? null,
    values.deviceStatus ?? null,
    codes(values.faultCodes),
    codes(values.warningCodes),
  ];
}
