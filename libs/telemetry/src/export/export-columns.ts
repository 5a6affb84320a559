import {
  CODE_FIELDS,
  NUMERIC_FIELDS,
  NumericField,
  TelemetryValues,
  TEXT_FIELDS,
  TextField,
  CodeField,
} from '../telemetry-fields';

/** How a field is written: numbers as numbers, text as text, code lists joined with `;`. */
export type ExportFieldKind = 'numeric' | 'text' | 'codes';

export interface ExportField {
  name: NumericField | TextField | CodeField;
  column: string;
  kind: ExportFieldKind;
  /** Unit of a numeric field, empty for text. */
  unit: string;
}

/** Every field of the field table, in its order: the columns after `timestamp` in both formats. */
export const EXPORT_FIELDS: readonly ExportField[] = [
  ...NUMERIC_FIELDS.map((field) => ({ ...pick(field), kind: 'numeric' as const, unit: field.unit })),
  ...TEXT_FIELDS.map((field) => ({ ...pick(field), kind: 'text' as const, unit: '' })),
  ...CODE_FIELDS.map((field) => ({ ...pick(field), kind: 'codes' as const, unit: '' })),
];

/** The header row of both formats. */
export const EXPORT_HEADER: readonly string[] = ['timestamp', ...EXPORT_FIELDS.map((field) => field.name)];

/** Separator of fault and warning codes inside one cell. */
export const CODE_SEPARATOR = ';';

export type ExportValue = number | string | string[] | null;

/**
 * One record as the database cursor delivers it (`rowMode: 'array'`, no object per row): the
 * timestamp, then one value per EXPORT_FIELDS entry at index `1 + position`.
 */
export type ExportRow = [Date, ...ExportValue[]];

/** Index in an ExportRow of the first numeric field (the numeric fields come first, in order). */
export const FIRST_VALUE_INDEX = 1;

/** The SELECT list whose result rows are ExportRows. */
export function exportSelectList(): string {
  return ['ts', ...EXPORT_FIELDS.map((field) => field.column)].join(', ');
}

/** An ExportRow from named values: fixtures for tests and anything not read from the database. */
export function toExportRow(ts: Date, values: Partial<TelemetryValues>): ExportRow {
  return [ts, ...EXPORT_FIELDS.map((field) => values[field.name] ?? null)];
}

function pick(field: { name: ExportField['name']; column: string }) {
  return { name: field.name, column: field.column };
}
