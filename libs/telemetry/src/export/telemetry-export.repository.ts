import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { pgPool } from '@solar/database';
import { exportSelectList } from './export-columns';

/**
 * Rows fetched per round trip. Larger batches barely save time, but their rows live long enough
 * to be promoted out of the young generation: 2,000 grew the heap by ~90 MB over 285,000 rows of
 * Excel export, 500 by ~25 MB.
 */
export const EXPORT_BATCH_SIZE = 500;

/** The caller has checked that the source is the user's. */
export interface ExportRange {
  sunSourceId: string;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  /** Most records read. */
  limit: number;
}

export interface ExportCursor {
  /** ExportRows (object mode), oldest first. Read it to the end, or destroy it. */
  rows: Readable;
  /** More than `limit` records lie in the range: `rows` stops at the limit. */
  truncated: boolean;
}

const RANGE_CONDITION = `t.sun_source_id = $1 AND t.ts >= $2 AND t.ts < $3`;

/**
 * For this transaction only: a plan whose rows flow from the first one. Costed for all its rows,
 * a month of 10-second data was sorted whole first (parallel workers spilling ~50 MB to disk,
 * JIT-compiled): the first row came after 0.8 s. The partitions' primary-key index scans give
 * the rows in order straight away, and run about as long in all.
 */
export const EXPORT_SETTINGS = 'SET LOCAL enable_sort = off; SET LOCAL jit = off';

const PROBE_SQL = `SELECT 1 FROM telemetry t WHERE ${RANGE_CONDITION} ORDER BY t.ts OFFSET $4 LIMIT 1`;

export const ROWS_SQL = `
  SELECT ${exportSelectList('t')}
  FROM telemetry t
  WHERE ${RANGE_CONDITION}
  ORDER BY t.ts
  LIMIT $4`;

type ExportRowBatch = unknown[][];

/** What pg-cursor offers for reading (pg-query-stream types it `any`). */
interface BatchReader {
  read(size: number, done: (error: unknown, rows: ExportRowBatch) => void): void;
}

/**
 * pg-query-stream, with two changes.
 *
 * It asks for the next batch as soon as one arrives, before handing that one on: the server
 * reads batch n + 1 while the api encodes batch n, instead of each waiting on the other (one
 * batch more in memory, and the round trip hidden).
 *
 * Its destroy does not wait on a connection that is gone. Closing the cursor waits for the
 * server's ReadyForQuery, which a dead connection never sends; a stream whose destroy never
 * completes never reports its error either, and the pipeline it is in (with the client's
 * download) would hang for good.
 */
class ExportRowStream extends QueryStream {
  private lost: Error | undefined;
  private pendingDestroy: ((error?: Error | null) => void) | undefined;
  private nextBatch: Promise<ExportRowBatch> | undefined;

  override _read(size: number): void {
    const batch = this.nextBatch ?? this.fetch(size);
    this.nextBatch = undefined;
    batch.then(
      (rows) => {
        if (this.destroyed) return;
        if (rows.length === size) this.nextBatch = this.fetch(size);
        for (const row of rows) this.push(row);
        if (rows.length < size) this.push(null);
      },
      (error: Error) => this.destroy(error),
    );
  }

  private fetch(size: number): Promise<ExportRowBatch> {
    const cursor = this.cursor as BatchReader;
    const batch = new Promise<ExportRowBatch>((resolve, reject) => {
      cursor.read(size, (error, rows) => (error ? reject(asError(error)) : resolve(rows)));
    });
    // A batch asked for ahead may fail after the stream is gone: nobody is left to hear it.
    batch.catch(() => undefined);
    return batch;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.lost) {
      callback(error ?? this.lost);
      return;
    }
    let called = false;
    this.pendingDestroy = (result) => {
      if (called) return;
      called = true;
      this.pendingDestroy = undefined;
      callback(result);
    };
    super._destroy(error as Error, this.pendingDestroy);
  }

  /** The connection died: fail the stream now, whatever the cursor was waiting for. */
  abandon(error: Error): void {
    this.lost = error;
    if (this.pendingDestroy) this.pendingDestroy(error);
    else this.destroy(error);
  }
}

/**
 * Reads an export straight from a server-side cursor: one connection of the pool for the whole
 * export, inside a READ ONLY REPEATABLE READ transaction so that the truncation probe and the
 * cursor see one snapshot. The connection goes back to the pool when the rows have been read
 * (COMMIT), and is closed instead when they were not (error, client gone), so that a connection
 * in an unknown protocol state is never reused.
 */
@Injectable()
export class TelemetryExportRepository {
  private readonly logger = new Logger(TelemetryExportRepository.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async open(range: ExportRange): Promise<ExportCursor> {
    const client = await pgPool(this.dataSource).connect();
    const parameters = [range.sunSourceId, range.from, range.to, range.limit];
    try {
      await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${EXPORT_SETTINGS}`);
      const probe = await client.query(PROBE_SQL, parameters);
      const rows = client.query(
        new ExportRowStream(ROWS_SQL, parameters, { batchSize: EXPORT_BATCH_SIZE, rowMode: 'array' }),
      );
      this.releaseWhenDone(client, rows);
      return { rows, truncated: (probe.rowCount ?? 0) > 0 };
    } catch (error) {
      client.release(asError(error));
      throw error;
    }
  }

  private releaseWhenDone(client: PoolClient, rows: ExportRowStream): void {
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      rows.off('end', onEnd).off('close', onClose);
      client.off('error', onConnectionLost).off('end', onConnectionLost);
      if (error !== undefined) {
        client.release(asError(error));
        return;
      }
      client.query('COMMIT').then(
        () => client.release(),
        (commitError: unknown) => {
          this.logger.warn({ err: commitError }, 'export transaction did not commit');
          client.release(asError(commitError));
        },
      );
    };
    const onEnd = () => settle();
    const onClose = () => settle(new Error('export cursor closed before its end'));
    const onConnectionLost = (error?: unknown) => {
      const lost =
        error === undefined ? new Error('database connection ended during an export') : asError(error);
      settle(lost);
      rows.abandon(lost);
    };
    // The 'error' listener stays: it also keeps an error from crashing the process before the
    // consumer attaches its own.
    rows.once('end', onEnd).once('close', onClose).on('error', settle);
    client.on('error', onConnectionLost).once('end', onConnectionLost);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
