import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LONG_STATEMENT_TIMEOUT } from '@solar/database';
import { SourceAccessCache } from '@solar/domain';
import { CODE_FIELDS, NUMERIC_FIELDS, TEXT_FIELDS } from '../telemetry-fields';

export const DOWNSAMPLE_AFTER_DAYS = 30;
export const BUCKET_SECONDS = 300;

export interface DownsampleResult {
  bucketsWritten: number;
  rowsRemoved: number;
}

// A day's energy is the sum of its counters' increments: a bucket keeps its highest reading,
// which is its last unless the counter restarted within the bucket, and a restart still shows
// as a drop at the next bucket, so the increments survive compaction. Everything else is
// averaged; power is then integrated over the 5-minute buckets.
const COUNTERS = new Set([
  'totalEnergyProduced',
  'totalEnergyConsumed',
  'dailyEnergyProduced',
  'dailyEnergyConsumed',
]);
const bucketOf = (timestamp: string) =>
  `to_timestamp(floor(extract(epoch FROM ${timestamp}) / ${BUCKET_SECONDS}) * ${BUCKET_SECONDS})`;

const aggregates = [
  ...NUMERIC_FIELDS.map(
    (field) => `${COUNTERS.has(field.name) ? 'max' : 'avg'}(${field.column}) AS ${field.column}`,
  ),
  // The most frequent mode and status of the bucket; the codes of its last reading.
  ...TEXT_FIELDS.map((field) => `mode() WITHIN GROUP (ORDER BY ${field.column}) AS ${field.column}`),
  // (array_agg of text[] would build a 2-D array, which cannot hold a null: go through jsonb.)
  ...CODE_FIELDS.map(
    (field) => `(array_agg(to_jsonb(${field.column}) ORDER BY ts DESC))[1] AS ${field.column}`,
  ),
];
const valueColumns = [
  ...NUMERIC_FIELDS.map((field) => field.column),
  ...TEXT_FIELDS.map((field) => field.column),
  ...CODE_FIELDS.map((field) => field.column),
];
const insertedValues = [
  ...NUMERIC_FIELDS.map((field) => field.column),
  ...TEXT_FIELDS.map((field) => field.column),
  ...CODE_FIELDS.map(
    (field) =>
      `CASE WHEN ${field.column} IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${field.column})) END`,
  ),
];

/**
 * Telemetry older than 30 days becomes one row per 5 minutes. Buckets that are
 * already a single row at the bucket's start are left alone, so running it again changes
 * nothing. Aggregate, delete, insert and the recount of the hourly rollup of the hours touched
 * happen in one transaction: a crash leaves either the original rows or the compacted ones,
 * never both and never neither, and the rollup always matches the rows.
 */
@Injectable()
export class TelemetryDownsampler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SourceAccessCache,
  ) {}

  /** One of the caller's sources, on demand (`POST /api/sunsourcedata/downsample/{id}`). */
  async downsampleOwned(ownerId: string, sunSourceId: string, now: Date): Promise<DownsampleResult> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    const cutoff = new Date(now.getTime() - DOWNSAMPLE_AFTER_DAYS * 86_400_000);
    return this.dataSource.transaction((manager) => this.compact(manager, sunSourceId, cutoff));
  }

  /** Every source with data old enough, one transaction each (the weekly job). */
  async downsampleAll(now: Date): Promise<DownsampleResult & { sources: number }> {
    const cutoff = new Date(now.getTime() - DOWNSAMPLE_AFTER_DAYS * 86_400_000);
    const sources: Array<{ id: string }> = await this.dataSource.query(
      `SELECT s.id FROM sun_sources s
        WHERE EXISTS (SELECT 1 FROM telemetry t WHERE t.sun_source_id = s.id AND t.ts < $1)`,
      [cutoff],
    );
    const total = { sources: sources.length, bucketsWritten: 0, rowsRemoved: 0 };
    for (const { id } of sources) {
      const result = await this.dataSource.transaction((manager) => this.compact(manager, id, cutoff));
      total.bucketsWritten += result.bucketsWritten;
      total.rowsRemoved += result.rowsRemoved;
    }
    return total;
  }

  private async compact(
    manager: EntityManager,
    sunSourceId: string,
    cutoff: Date,
  ): Promise<DownsampleResult> {
    await manager.query(LONG_STATEMENT_TIMEOUT);
    // One compaction of a source at a time, across processes: two at once would both delete the
    // old rows and insert the same buckets (a unique violation). The second waits here; its next
    // statement sees what the first committed, finds the buckets compacted and writes nothing.
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('telemetry-downsample'), hashtext($1))`, [
      sunSourceId,
    ]);
    await manager.query(
      `CREATE TEMPORARY TABLE downsampled ON COMMIT DROP AS
         SELECT ${bucketOf('ts')} AS bucket, count(*) AS samples, ${aggregates.join(', ')}
           FROM telemetry
          WHERE sun_source_id = $1 AND ts < $2
          GROUP BY 1
         HAVING count(*) > 1 OR min(ts) <> ${bucketOf('min(ts)')}`,
      [sunSourceId, cutoff],
    );
    const [, rowsRemoved]: [unknown, number] = await manager.query(
      `DELETE FROM telemetry t USING downsampled d
        WHERE t.sun_source_id = $1 AND t.ts < $2
          AND t.ts >= d.bucket AND t.ts < d.bucket + make_interval(secs => ${BUCKET_SECONDS})`,
      [sunSourceId, cutoff],
    );
    const inserted: unknown[] = await manager.query(
      `INSERT INTO telemetry (sun_source_id, ts, received_at, ${valueColumns.join(', ')}, raw)
       SELECT $1, bucket, now(), ${insertedValues.join(', ')},
              jsonb_build_object('downsampled', true, 'samples', samples)
         FROM downsampled
       RETURNING 1`,
      [sunSourceId],
    );
    // Compaction changes the hours' counts and averages: recount them from the compacted rows.
    await manager.query(
      `SELECT rebuild_telemetry_hourly($1, first, last + make_interval(secs => ${BUCKET_SECONDS}))
         FROM (SELECT min(bucket) AS first, max(bucket) AS last FROM downsampled) d
        WHERE first IS NOT NULL`,
      [sunSourceId],
    );
    return { bucketsWritten: inserted.length, rowsRemoved };
  }
}
