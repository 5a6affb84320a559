import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '@solar/database';
import {
  telemetryBatchFailures,
  telemetryBatchPoints,
  telemetryCommitDuration,
  telemetryIngestionLag,
} from '@solar/monitoring';
import {
  INSERT_TELEMETRY_SQL,
  InsertedOrRefused,
  insertParameters,
  pointKey,
  refusalKey,
} from './telemetry-insert';
import { TelemetryPartitions } from './telemetry-partitions';
import { TelemetryPoint } from './telemetry-point';

/** A batch is written when it holds this many points... */
export const MAX_BATCH = 1000;
/** ...or this long after its first point arrived, whichever comes first... */
export const LINGER_MS = 5;
/**
 * ...or, while fewer than MAX_IN_FLIGHT batches are being committed, as soon as it holds this
 * many. Under load the database then commits one batch while this process prepares the next,
 * instead of the two taking turns on one large batch (docs/performance.md, "the writer's
 * pipeline"). Past MAX_IN_FLIGHT, points wait for a commit to end rather than for the linger,
 * so that the database is not handed more concurrent statements than it has cores for.
 */
export const EARLY_BATCH = 128;
export const MAX_IN_FLIGHT = 2;

const NO_PARTITION = '23514';
/**
 * SQLSTATE classes 22 (data exception) and 23 (integrity violation, e.g. a source deleted while
 * its message was in flight): the database refuses a row, so only that row should fail.
 */
const isRowRefusal = (error: unknown) => /^2[23]/.test(sqlState(error));
/** Class 22 alone: the row's own values are what the database refuses, whenever it is tried. */
const isDataException = (error: unknown) => sqlState(error).startsWith('22');
const sqlState = (error: unknown) => String((error as { code?: string } | undefined)?.code ?? '');

/**
 * `stored`: committed. `duplicate`: that source and timestamp were stored already. `refused`: the
 * source is gone, or no longer active and of the transport the point came by. `unstorable`: the
 * database refuses the row for its values (a data exception). The last two are final, not retried.
 */
export type WriteResult = 'stored' | 'duplicate' | 'refused' | 'unstorable';

interface BatchResult {
  stored: Set<string>;
  /** `refusalKey`s of the (source, transport) pairs the statement refused. */
  refused: Set<string>;
}

interface Pending {
  point: TelemetryPoint;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent writers share one INSERT, and at most two such INSERTs run at a time
 * unless a batch fills up. `write` resolves once the batch holding the point is committed, with
 * what became of the point, and rejects if the batch failed, so nothing is acknowledged before it
 * is durable.
 */
@Injectable()
export class TelemetryWriter implements OnApplicationShutdown {
  private readonly logger = new Logger(TelemetryWriter.name);
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly partitions: TelemetryPartitions,
    private readonly statements: PreparedQueries,
  ) {}

  write(point: TelemetryPoint): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ point, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else if (this.pending.length >= EARLY_BATCH && this.canStartBatch()) this.flush();
      else this.timer ??= setTimeout(() => this.lingerEnded(), LINGER_MS);
    });
  }

  /** Whether a point of this source at exactly this timestamp is committed. */
  async isStored(sunSourceId: string, ts: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM telemetry WHERE sun_source_id = $1 AND ts = $2 LIMIT 1',
      [sunSourceId, ts],
    );
    return rows.length > 0;
  }

  /** Writes what is waiting and waits for every batch under way (shutdown, tests). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Every connection opened and the INSERT prepared on it (with no rows): `TelemetryWarmUpModule`. */
  async warmUp(): Promise<void> {
    await this.statements.warmUp([{ text: INSERT_TELEMETRY_SQL, values: insertParameters([]) }]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private canStartBatch(): boolean {
    return this.inFlight.size < MAX_IN_FLIGHT;
  }

  /** The batch has lingered long enough; at the cap it goes when a commit ends instead. */
  private lingerEnded(): void {
    this.timer = undefined;
    if (this.canStartBatch()) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const written = this.insert(batch).finally(() => {
      this.inFlight.delete(written);
      // What waited for this commit goes now: a full early batch, or one whose linger has ended.
      const due = this.pending.length >= EARLY_BATCH || this.timer === undefined;
      if (due && this.canStartBatch()) this.flush();
    });
    this.inFlight.add(written);
  }

  private async insert(batch: Pending[]): Promise<void> {
    // A resend inside one batch is stored once; the later copy reports "not stored".
    const unique = new Map<string, Pending>();
    const repeats: Pending[] = [];
    for (const entry of batch) {
      const key = pointKey(entry.point.sunSourceId, entry.point.ts);
      if (unique.has(key)) repeats.push(entry);
      else unique.set(key, entry);
    }
    const points = [...unique.values()].map((entry) => entry.point);
    try {
      const startedAt = performance.now();
      const result = await this.insertWithPartitions(points);
      telemetryCommitDuration.observe((performance.now() - startedAt) / 1000);
      telemetryBatchPoints.observe(points.length);
      const committedAt = Date.now();
      for (const [key, entry] of unique) settle(entry, outcomeOf(result, key, entry.point), committedAt);
      for (const entry of repeats) {
        entry.resolve(outcomeOf(result, undefined, entry.point));
      }
    } catch (error) {
      for (const entry of repeats) entry.resolve('duplicate');
      if (isRowRefusal(error)) return this.insertOneByOne([...unique.values()]);
      telemetryBatchFailures.inc();
      this.logger.error({ err: error, points: unique.size }, 'telemetry batch failed');
      for (const entry of unique.values()) entry.reject(error);
    }
  }

  /**
   * One bad row must not cost its batch-mates their write: isolate it (a batch of one is tried
   * once more, alone as well). A source deleted between the statement's snapshot and its
   * foreign-key check lands here too; alone, its row is then refused by the statement's join
   * instead of failing again.
   */
  private async insertOneByOne(entries: Pending[]): Promise<void> {
    for (const entry of entries) {
      try {
        const key = pointKey(entry.point.sunSourceId, entry.point.ts);
        const result = await this.insertWithPartitions([entry.point]);
        settle(entry, outcomeOf(result, key, entry.point), Date.now());
      } catch (error) {
        if (isDataException(error)) {
          this.refuseForGood(entry, error);
          continue;
        }
        this.logger.error({ err: error, sunSourceId: entry.point.sunSourceId }, 'telemetry row refused');
        entry.reject(error);
      }
    }
  }

  /**
   * A row whose values the database refuses would be refused again on every retry: settled as
   * `unstorable`, so its sender is told so instead of retrying forever (and holding its place
   * among the messages in flight). A warning, not an error: the fault is the row's, not ours.
   */
  private refuseForGood(entry: Pending, error: unknown): void {
    this.logger.warn(
      { err: error, sunSourceId: entry.point.sunSourceId, ts: entry.point.ts },
      'telemetry row unstorable',
    );
    entry.resolve('unstorable');
  }

  private async insertWithPartitions(points: TelemetryPoint[]): Promise<BatchResult> {
    await this.partitions.ensureFor(points.map((point) => point.ts));
    try {
      return await this.insertRows(points);
    } catch (error) {
      if ((error as { code?: string }).code !== NO_PARTITION) throw error;
      this.partitions.forget();
      await this.partitions.ensureFor(points.map((point) => point.ts));
      return this.insertRows(points);
    }
  }

  private async insertRows(points: TelemetryPoint[]): Promise<BatchResult> {
    // Named, so that each connection parses and plans the statement once rather than per batch.
    const rows = await this.statements.query<InsertedOrRefused>(
      INSERT_TELEMETRY_SQL,
      insertParameters(points),
    );
    const result: BatchResult = { stored: new Set(), refused: new Set() };
    for (const row of rows) {
      if (row.ts === null) result.refused.add(refusalKey(row.sun_source_id, row.refused_via || null));
      else result.stored.add(pointKey(row.sun_source_id, row.ts));
    }
    return result;
  }
}

/** Tells the writer what became of its point; a stored one counts its lag from receipt to commit. */
function settle(entry: Pending, result: WriteResult, committedAt: number): void {
  if (result === 'stored')
    telemetryIngestionLag.observe((committedAt - entry.point.receivedAt.getTime()) / 1000);
  entry.resolve(result);
}

/** `key` undefined: a resend inside the batch, which is never the copy that was stored. */
function outcomeOf(result: BatchResult, key: string | undefined, point: TelemetryPoint): WriteResult {
  if (result.refused.has(refusalKey(point.sunSourceId, point.via))) return 'refused';
  return key !== undefined && result.stored.has(key) ? 'stored' : 'duplicate';
}
