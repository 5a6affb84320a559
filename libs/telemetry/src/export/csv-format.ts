import { EXPORT_HEADER, ExportRow } from './export-columns';

const NEEDS_QUOTES = /[",\r\n]/;
/**
 * Text a spreadsheet could take for a formula (CSV injection): `=`, `+`, `-`, `@`, tab or CR
 * first. Such a cell gets a leading `'`, which spreadsheets read as "this is text" and hide.
 * Numbers are never prefixed: a negative reading stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Where PostgreSQL's spelling of a number differs from `String(n)`: exponents, negative zero. */
const NOT_JS_SPELLING = /e|-0(?:,|$)/;

/** One text cell: neutralized against formulas, then quoted as RFC 4180 says when needed. */
export function csvText(value: string | null): string {
  if (value === null) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The numbers of an ExportRow as CSV cells: `String(n)` of each (full precision, `.` decimal),
 * empty for null. PostgreSQL's shortest round-trip digits are those of `String(n)`; only its
 * exponent form (`1e-07` for `1e-7`) and `-0` are respelled.
 */
export function csvNumbers(numbers: string): string {
  if (!NOT_JS_SPELLING.test(numbers)) return numbers;
  return numbers
    .split(',')
    .map((number) => (number === '' ? '' : String(Number(number))))
    .join(',');
}

/** The header row, CRLF-terminated. */
export function csvHeader(): string {
  return `${EXPORT_HEADER.join(',')}\r\n`;
}

/**
 * One record as an RFC 4180 line, CRLF-terminated: the ISO 8601 UTC timestamp, the numbers,
 * the texts, the codes joined with `;`; null is an empty cell.
 */
export function csvRecord(row: ExportRow): string {
  const [epochMs, numbers, operatingMode, deviceStatus, faultCodes, warningCodes] = row;
  return `${new Date(epochMs).toISOString()},${csvNumbers(numbers)},${csvText(operatingMode)},${csvText(deviceStatus)},${csvText(faultCodes)},${csvText(warningCodes)}\r\n`;
}
