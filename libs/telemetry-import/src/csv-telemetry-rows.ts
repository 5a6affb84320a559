import { DateTime, IANAZone } from 'luxon';
import { BadRequestError } from '@solar/core';
import { telemetryFieldOf, TIMESTAMP_ALIASES } from '@solar/telemetry';

export const ImportMessages = {
  noTimestampColumn: `The CSV header needs a timestamp column (${TIMESTAMP_ALIASES.slice(0, 4).join(', ')}, ...)`,
  noFieldColumn: 'The CSV header names no telemetry field',
  emptyFile: 'The CSV file is empty: a header row is needed',
  invalidTimeZone: 'timeZone must be an IANA time zone such as Europe/Berlin',
  missingTimestamp: 'Missing timestamp',
  duplicateColumn: (name: string) => `The CSV header names column "${name}" twice`,
  columnCount: (expected: number, found: number) => `Expected ${expected} columns, found ${found}`,
  rowTooLong: (line: number, maxBytes: number) =>
    `Line ${line} is longer than ${maxBytes} bytes; the import stopped there`,
} as const;

/** A date and time without a UTC offset: local time, read in the import's time zone when one is given. */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?$/;

/**
 * The header row of an import, checked once: column names matched to telemetry fields exactly as a
 * message's properties are (`telemetryFieldOf`), and a row turned into the payload a device
 * would have sent, so the rest of the way is the messages' own.
 */
export class CsvTelemetryHeader {
  private readonly names: readonly string[];
  private readonly timestampColumns: readonly number[];
  private readonly zone: IANAZone | undefined;

  /** Throws `BadRequestError` for a header no row of which could be stored. */
  constructor(header: readonly string[], timeZone?: string) {
    if (timeZone !== undefined && !IANAZone.isValidZone(timeZone)) {
      throw new BadRequestError(ImportMessages.invalidTimeZone);
    }
    this.zone = timeZone === undefined ? undefined : IANAZone.create(timeZone);
    this.names = header.map((name) => name.trim());
    const seen = new Set<string>();
    for (const name of this.names) {
      if (name === '') continue;
      if (seen.has(name.toLowerCase())) throw new BadRequestError(ImportMessages.duplicateColumn(name));
      seen.add(name.toLowerCase());
    }
    const fields = this.names.map((name) => (name === '' ? undefined : telemetryFieldOf(name)));
    this.timestampColumns = fields.flatMap((field, index) => (field === 'timestamp' ? [index] : []));
    if (this.timestampColumns.length === 0) throw new BadRequestError(ImportMessages.noTimestampColumn);
    if (!fields.some((field) => field !== undefined && field !== 'timestamp')) {
      throw new BadRequestError(ImportMessages.noFieldColumn);
    }
  }

  /** Columns no telemetry field reads: kept in the stored raw payload, as a message's would be. */
  get ignoredColumns(): string[] {
    return this.names.filter((name) => name !== '' && telemetryFieldOf(name) === undefined);
  }

  /**
   * The row as a message: a property per non-empty cell (unnamed columns left out), a local
   * timestamp given the import's UTC offset at that moment. A string, the reason, when the row
   * cannot be a message at all.
   */
  payloadOf(cells: readonly string[]): Record<string, string> | string {
    if (cells.length !== this.names.length) {
      return ImportMessages.columnCount(this.names.length, cells.length);
    }
    const payload: Record<string, string> = {};
    cells.forEach((cell, index) => {
      const name = this.names[index];
      if (name !== '' && cell.trim() !== '') payload[name] = cell;
    });
    let timestamped = false;
    for (const index of this.timestampColumns) {
      const name = this.names[index];
      const value = payload[name];
      if (value === undefined) continue;
      timestamped = true;
      payload[name] = this.withOffset(value.trim());
    }
    // Without one, the message path would take the arrival time: meaningless for history.
    return timestamped ? payload : ImportMessages.missingTimestamp;
  }

  /**
   * `2024-03-31 02:30` in Europe/Berlin → `2024-03-31T03:30:00.000+02:00`: a time the clocks
   * skipped moves forward by the gap, a time they passed twice is read as the second pass, in
   * standard time (luxon's rules). Values with an offset, epoch numbers and text the normalizer will refuse pass as they are.
   */
  private withOffset(value: string): string {
    if (this.zone === undefined || !LOCAL_DATE_TIME.test(value)) return value;
    const local = DateTime.fromISO(value.replace(/[ t]/, 'T'), { zone: this.zone });
    return local.isValid ? (local.toISO() ?? value) : value;
  }
}
