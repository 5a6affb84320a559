import { Injectable } from '@nestjs/common';
import { CsvError, Options, parse } from 'csv-parse';
import { Readable, Transform } from 'node:stream';
import { BadRequestError, Clock, NotFoundError } from '@solar/core';
import { SUN_SOURCE_NOT_FOUND } from '@solar/domain';
import { IngestOutcome, MAX_TELEMETRY_BYTES, TelemetryIngestion } from '@solar/telemetry';
import { CsvTelemetryHeader, ImportMessages } from './csv-telemetry-rows';
import { ImportReport, ImportTally } from './import-report';

/**
 * Rows on their way at once. A row's objects (its cells, payload, normalized values, the promise
 * of each stage) live until it settles, and the process allocates about 18 KB per row meanwhile:
 * 250 rows on their way are about 5 MB of allocation, well under the 14 MB or so between two
 * scavenges, so few rows live through two and get copied to the old generation. 1,000 rows made
 * batches four times larger and the import faster, but nearly every row's objects were copied
 * there, and V8 lets the old generation grow to four times its live size (by its default
 * sizing) between full collections: memory then grew by 200 MB over an import, whatever the
 * file's size. A batch of the writer and of the windows is then these 250 rows.
 */
export const ROWS_IN_FLIGHT = 250;
const PROGRESS_EVERY_MS = 1_000;
/**
 * The parser turns each piece of the file it is given into rows at once, and a piece waits whole
 * for the rows before it to be taken: 16 KiB (about 300 rows) rather than a file stream's 64 KiB,
 * so rows are not parsed long before their turn.
 */
export const PARSE_SLICE_BYTES = 16 * 1024;

export interface ImportOptions {
  /** IANA zone of timestamps written without a UTC offset; none: such timestamps are UTC. */
  timeZone?: string;
  /** Called about once a second with the counts so far. */
  onProgress?: (progress: ImportReport) => void;
}

type Settled = { line: number; outcome: IngestOutcome } | { line: number; error: unknown };

/** A row as the parser hands it over: its cells and the line of the file it ends on. */
interface CsvRow {
  cells: string[];
  line: number;
}

/**
 * Reads a CSV of telemetry history and stores its rows the way device messages are stored: each
 * row becomes the payload a device would have sent and goes through `TelemetryIngestion` (the
 * normalizer with its range checks, the 10 s device-time rule against stored rows and the file's
 * own earlier rows, the batched writer that adds them to the hourly rollup). A row stored before
 * is a duplicate, so importing a file twice stores nothing the second time.
 *
 * The file streams through: at most ROWS_IN_FLIGHT rows are held at once, whatever its size.
 * Throws `BadRequestError` for a header no row could be stored under (nothing is stored then),
 * `NotFoundError` if the source goes away during the import.
 */
@Injectable()
export class TelemetryImporter {
  constructor(
    private readonly ingestion: TelemetryIngestion,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads the header row only and throws what `run` would throw for it: a job's file is checked
   * before it is queued, so a wrong header is answered at once.
   */
  async checkHeader(csv: Readable, timeZone?: string): Promise<void> {
    const parser = parse({
      bom: true,
      skip_empty_lines: true,
      to_line: 1,
      max_record_size: MAX_TELEMETRY_BYTES,
    });
    csv.on('error', (error) => parser.destroy(error));
    csv.pipe(parser);
    try {
      for await (const cells of parser as AsyncIterable<string[]>) {
        new CsvTelemetryHeader(cells, timeZone);
        return;
      }
      throw new BadRequestError(ImportMessages.emptyFile);
    } finally {
      csv.unpipe(parser);
      csv.destroy();
    }
  }

  async run(sunSourceId: string, csv: Readable, options: ImportOptions = {}): Promise<ImportReport> {
    const tally = new ImportTally();
    const parserOptions: Options<CsvRow, string[]> = {
      bom: true,
      skip_empty_lines: true,
      // Of the parser's record information a row keeps its line only.
      on_record: (cells, context) => ({ cells, line: context.lines }),
      // A row of the wrong width is one rejected row (ours to word), not the end of the file.
      relax_column_count: true,
      // Each row is one message: no longer than a message may be, so an unclosed quote cannot
      // make the parser hold the rest of the file.
      max_record_size: MAX_TELEMETRY_BYTES,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (!error) return;
        const line = Number(error.lines) || 0;
        // The parser cannot find the next row after an overlong one: the import ends there.
        if (error.code === 'CSV_MAX_RECORD_SIZE') {
          parser.destroy(new BadRequestError(ImportMessages.rowTooLong(line, MAX_TELEMETRY_BYTES)));
          return;
        }
        tally.read();
        tally.reject(line, error.message);
      },
    };
    // The typings tie a parser to plain records; `on_record` makes them rows.
    const parser = parse(parserOptions as unknown as Options);
    const slicer = slices(PARSE_SLICE_BYTES);
    csv.on('error', (error) => parser.destroy(error));
    csv.pipe(slicer).pipe(parser);

    let header: CsvTelemetryHeader | undefined;
    const queue: Array<Promise<Settled>> = [];
    let reportedAt = Date.now();
    const settleOldest = async () => record(tally, (await queue.shift())!);
    try {
      for await (const { cells, line } of parser as AsyncIterable<CsvRow>) {
        if (header === undefined) {
          header = new CsvTelemetryHeader(cells, options.timeZone);
          continue;
        }
        tally.read();
        const payload = header.payloadOf(cells);
        if (typeof payload === 'string') {
          tally.reject(line, payload);
        } else {
          queue.push(
            this.ingestion.ingest(sunSourceId, payload, this.clock.now(), undefined, 'history').then(
              (outcome) => ({ line, outcome }),
              (error: unknown) => ({ line, error }),
            ),
          );
          if (queue.length >= ROWS_IN_FLIGHT) await settleOldest();
        }
        if (options.onProgress && Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
          reportedAt = Date.now();
          options.onProgress(tally.snapshot());
        }
      }
      if (header === undefined) throw new BadRequestError(ImportMessages.emptyFile);
      while (queue.length > 0) await settleOldest();
    } finally {
      csv.unpipe(slicer);
      slicer.unpipe(parser);
      csv.destroy();
    }
    return tally.snapshot();
  }
}

/** Passes the file on in pieces of at most `size` bytes (views of the chunks read, not copies). */
function slices(size: number): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let start = 0; start < chunk.length; start += size) this.push(chunk.subarray(start, start + size));
      done();
    },
  });
}

function record(tally: ImportTally, settled: Settled): void {
  if ('error' in settled) throw settled.error;
  const { outcome, line } = settled;
  switch (outcome.status) {
    case 'stored':
    case 'duplicate':
    case 'throttled':
      return tally.count(outcome.status);
    case 'rejected':
      return tally.reject(line, outcome.message);
    // Imported rows take no transport, so only a source deleted meanwhile is refused.
    case 'refused':
      throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    case 'overBudget':
      throw new Error('an imported row was held to the arrival budget');
  }
}
