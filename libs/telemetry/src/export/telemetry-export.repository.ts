import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { pgPool } from '@solar/database';
import { exportRows } from '@solar/monitoring';
import { READINGS_BEFORE, readingsBeforeOf } from '../energy/daily-energy-sql';
import { EnergyReadingsBefore } from '../energy/energy-increments';
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
  /** The energy readings before the range that its first records count from. */
  readingsBefore: EnergyReadingsBefore;
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

/** The cursor an export reads, within its own transaction. */
const CURSOR = 'export_rows';
const FETCH_SQL = `FETCH ${EXPORT_BATCH_SIZE} FROM ${CURSOR}`;

/** How long an export's transaction may wait on the server, then on its client. */
export interface ExportTimeouts {
  /** `statement_timeout` of each statement: the probe and every FETCH of the cursor. */
  statementSeconds: number;
  /** `idle_in_transaction_session_timeout`: the server ends a transaction left waiting this long. */
  idleInTransactionSeconds: number;
}

export const DEFAULT_EXPORT_TIMEOUTS: ExportTimeouts = { statementSeconds: 60, idleInTransactionSeconds: 90 };

/**
 * The rows of a cursor declared in SQL, fetched EXPORT_BATCH_SIZE at a time, each FETCH a
 * statement of its own. (A protocol-level cursor, such as pg-cursor's, runs as one statement
 * until its last row: `statement_timeout` would bound the whole download, however fast, and the
 * server would never see the transaction as idle, whatever the client does.)
 *
 * It asks for the next batch as soon as one arrives, before handing that one on: the server
 * reads batch n + 1 while the api encodes batch n, instead of each waiting on the other (one
 * batch more in memory, and the round trip hidden).
 */
class ExportRowStream extends Readable {
  private nextBatch: Promise<ExportRowBatch> | undefined;

  constructor(private readonly client: PoolClient) {
    super({ objectMode: true, highWaterMark: EXPORT_BATCH_SIZE });
  }

  override _read(): void {
    const batch = this.nextBatch ?? this.fetch();
    this.nextBatch = undefined;
    batch.then(
      (rows) => {
        if (this.destroyed) return;
        if (rows.length === EXPORT_BATCH_SIZE) this.nextBatch = this.fetch();
        exportRows.inc(rows.length);
        for (const row of rows) this.push(row);
        if (rows.length < EXPORT_BATCH_SIZE) this.push(null);
      },
      (error: Error) => this.destroy(error),
    );
  }

  private fetch(): Promise<ExportRowBatch> {
    const batch = this.client
      .query<unknown[]>({ text: FETCH_SQL, rowMode: 'array' })
      .then((result) => result.rows);
    // A batch asked for ahead may fail after the stream is gone: nobody is left to hear it.
    batch.catch(() => undefined);
    return batch;
  }
}

/**
 * Reads an export straight from a server-side cursor: one connection of the pool for the whole
 * export, inside a READ ONLY REPEATABLE READ transaction so that the truncation probe, the energy
 * readings before the range and the cursor see one snapshot. The connection goes back to the pool when the rows have been read
 * (COMMIT), and is closed instead when they were not (error, client gone, stalled download), so
 * that the transaction and its snapshot end at once and a connection in an unknown state is
 * never reused. The transaction's own timeouts end it on the server should the api fail to.
 */
@Injectable()
export class TelemetryExportRepository {
  private readonly logger = new Logger(TelemetryExportRepository.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async open(range: ExportRange, timeouts: ExportTimeouts = DEFAULT_EXPORT_TIMEOUTS): Promise<ExportCursor> {
    const client = await pgPool(this.dataSource).connect();
    const parameters = [range.sunSourceId, range.from, range.to, range.limit];
    try {
      await client.query(
        `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${EXPORT_SETTINGS};
         SET LOCAL statement_timeout = ${Math.round(timeouts.statementSeconds * 1000)};
         SET LOCAL idle_in_transaction_session_timeout = ${Math.round(timeouts.idleInTransactionSeconds * 1000)}`,
      );
      const probe = await client.query(PROBE_SQL, parameters);
      const before = await client.query(READINGS_BEFORE, [range.sunSourceId, range.from]);
      await client.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${ROWS_SQL}`, parameters);
      const rows = new ExportRowStream(client);
      this.releaseWhenDone(client, rows);
      return { rows, truncated: (probe.rowCount ?? 0) > 0, readingsBefore: readingsBeforeOf(before.rows[0]) };
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
      rows.destroy(lost);
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
