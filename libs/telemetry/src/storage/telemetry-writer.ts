import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { INSERT_TELEMETRY_SQL, insertParameters, pointKey } from './telemetry-insert';
import { TelemetryPartitions } from './telemetry-partitions';
import { TelemetryPoint } from './telemetry-point';

/** A batch is written when it holds this many points... */
export const MAX_BATCH = 1000;
/** ...or this long after its first point arrived, whichever comes first. */
export const LINGER_MS = 5;

const NO_PARTITION = '23514';
/**
 * SQLSTATE classes 22 (data exception) and 23 (integrity violation, e.g. a source deleted while
 * its message was in flight): the database refuses a row, so only that row should fail.
 */
const isRowRefusal = (error: unknown) => /^2[23]/.test(String((error as { code?: string }).code ?? ''));

interface Pending {
  point: TelemetryPoint;
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent writers share one INSERT. `write` resolves once the batch holding the
 * point is committed (true: stored; false: that source and timestamp were already stored, or the
 * source is gone), and rejects if the batch failed, so nothing is acknowledged before it is durable.
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
  ) {}

  write(point: TelemetryPoint): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ point, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), LINGER_MS);
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

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const written = this.insert(batch).finally(() => this.inFlight.delete(written));
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
    for (const entry of repeats) entry.resolve(false);
    try {
      const stored = await this.insertWithPartitions(points);
      for (const [key, entry] of unique) entry.resolve(stored.has(key));
    } catch (error) {
      if (unique.size > 1 && isRowRefusal(error)) return this.insertOneByOne([...unique.values()]);
      this.logger.error({ err: error, points: unique.size }, 'telemetry batch failed');
      for (const entry of unique.values()) entry.reject(error);
    }
  }

  /** One bad row must not cost its batch-mates their write: isolate it. */
  private async insertOneByOne(entries: Pending[]): Promise<void> {
    for (const entry of entries) {
      try {
        const stored = await this.insertWithPartitions([entry.point]);
        entry.resolve(stored.size > 0);
      } catch (error) {
        this.logger.error({ err: error, sunSourceId: entry.point.sunSourceId }, 'telemetry row refused');
        entry.reject(error);
      }
    }
  }

  private async insertWithPartitions(points: TelemetryPoint[]): Promise<Set<string>> {
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

  private async insertRows(points: TelemetryPoint[]): Promise<Set<string>> {
    const rows: Array<{ sun_source_id: string; ts: Date }> = await this.dataSource.query(
      INSERT_TELEMETRY_SQL,
      insertParameters(points),
    );
    return new Set(rows.map((row) => pointKey(row.sun_source_id, row.ts)));
  }
}
