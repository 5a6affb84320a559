import { Inject, Injectable, Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { BadRequestError, Clock, ServiceUnavailableError, TooManyRequestsError } from '@solar/core';
import { SourceAccessCache } from '@solar/domain';
import { exportStreamsActive } from '@solar/monitoring';
import { CsvExportEncoder } from './csv-export-encoder';
import { ExportFormat, exportFileName } from './export-file-name';
import { ExportSlots } from './export-slots';
import { ExportUserSlots } from './export-user-slots';
import { closeWhenStalled, DownloadStalledError } from './stalled-download';
import { ExportCursor, ExportTimeouts, TelemetryExportRepository } from './telemetry-export.repository';
import { writeXlsxExport } from './xlsx-export-writer';

/** Injection token of the most records one export holds (500,000 by default). */
export const EXPORT_ROW_LIMIT = 'EXPORT_ROW_LIMIT';
export const DEFAULT_EXPORT_ROW_LIMIT = 500_000;
/** The longest export range: 33 days, exactly; one millisecond more is refused. */
export const MAX_EXPORT_RANGE_MS = 33 * 24 * 3600_000;
export const EXPORT_RANGE_TOO_LONG = 'Export range exceeds 33 days';
export const EXPORT_RANGE_REVERSED = 'endDate must be after startDate';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export interface ExportRequest {
  ownerId: string;
  sunSourceId: string;
  /** Inclusive. */
  startDate: Date;
  /** Exclusive. */
  endDate: Date;
}

/** What the transport needs to announce the file before its first byte. */
export interface ExportFile {
  fileName: string;
  contentType: string;
  /** The range held more records than the limit; the file stops at the limit. */
  truncated: boolean;
}

/** Exports of this process beyond this many at once wait for a slot (see ExportSlots). */
export const MAX_CONCURRENT_EXPORTS = 4;
/** Exports of this process waiting for a slot; one more answers 503 at once. */
export const MAX_WAITING_EXPORTS = 16;
/** Longest wait for a slot before answering 503. */
export const MAX_EXPORT_WAIT_MS = 30_000;

export const TOO_MANY_EXPORTS = 'Too many exports in progress. Try again later.';
export const EXPORTS_BUSY = 'The server is busy with other exports. Try again later.';
/** When to come back: an export of a month takes seconds to a minute. */
export const EXPORT_RETRY_AFTER_SECONDS = 30;
/** The server ends an export's transaction left idle this much longer than the api's own limit. */
const SERVER_IDLE_MARGIN_SECONDS = 30;

/** Exports of this process streaming now, by format: read at scrape time. */
const streaming: Record<ExportFormat, number> = { csv: 0, xlsx: 0 };
exportStreamsActive.report(() =>
  (Object.keys(streaming) as ExportFormat[]).map((format) => ({
    labels: { format },
    value: streaming[format],
  })),
);

/**
 * CSV and Excel export of one source's telemetry, streamed from a database
 * cursor to the destination, so memory stays flat whatever the size.
 */
@Injectable()
export class TelemetryExportService {
  private readonly logger = new Logger(TelemetryExportService.name);
  private readonly slots = new ExportSlots({
    capacity: MAX_CONCURRENT_EXPORTS,
    maxWaiting: MAX_WAITING_EXPORTS,
    maxWaitMs: MAX_EXPORT_WAIT_MS,
  });
  private readonly timeouts: ExportTimeouts;

  constructor(
    private readonly access: SourceAccessCache,
    private readonly repository: TelemetryExportRepository,
    private readonly userSlots: ExportUserSlots,
    private readonly clock: Clock,
    @Inject(EXPORT_ROW_LIMIT) private readonly rowLimit: number,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const { exportStatementSeconds, exportIdleSeconds } = config.limits;
    this.timeouts = {
      statementSeconds: exportStatementSeconds,
      idleInTransactionSeconds: exportIdleSeconds + SERVER_IDLE_MARGIN_SECONDS,
    };
  }

  /**
   * Checks the request, then calls `start` with the file's name and type and streams the file
   * into the destination it returns. Rejects (with a domain error) only before `start`: once
   * the first byte may have left, a failure is logged and the destination destroyed, so that
   * the client sees a broken transfer rather than a complete-looking file. A client that reads
   * nothing for `EXPORT_IDLE_TIMEOUT_SECONDS` has its download closed the same way.
   */
  async export(
    request: ExportRequest,
    format: ExportFormat,
    start: (file: ExportFile) => Writable,
  ): Promise<void> {
    const { startDate, endDate } = request;
    if (endDate.getTime() <= startDate.getTime()) throw new BadRequestError(EXPORT_RANGE_REVERSED);
    if (endDate.getTime() - startDate.getTime() > MAX_EXPORT_RANGE_MS) {
      throw new BadRequestError(EXPORT_RANGE_TOO_LONG);
    }
    const source = await this.access.ownedHeading(request.ownerId, request.sunSourceId);

    const { rows, truncated, readingsBefore, release } = await this.openWithinLimits(request);
    rows.once('close', release);

    let destination: Writable | undefined;
    let stopWatching: (() => void) | undefined;
    streaming[format] += 1;
    try {
      const now = this.clock.now();
      destination = start({
        fileName: exportFileName(source.name, now, format),
        contentType: EXPORT_CONTENT_TYPES[format],
        truncated,
      });
      stopWatching = closeWhenStalled(destination, this.config.limits.exportIdleSeconds * 1000);
      if (format === 'csv') await pipeline(rows, new CsvExportEncoder(), destination);
      else
        await writeXlsxExport(rows, destination, {
          from: startDate,
          to: endDate,
          truncated,
          now,
          readingsBefore,
        });
    } catch (error) {
      // Break the transfer off: a response ended normally here would look complete.
      rows.destroy();
      destination?.destroy();
      if (error instanceof DownloadStalledError)
        this.logger.warn(`export of ${request.sunSourceId} closed: ${error.message}`);
      else if (isClientGone(error))
        this.logger.debug(`export of ${request.sunSourceId} stopped: the client went away`);
      else
        this.logger.error({ err: error, sunSourceId: request.sunSourceId }, 'export failed while streaming');
    } finally {
      streaming[format] -= 1;
      stopWatching?.();
      // Normally the rows have closed already; this only makes sure a slot can never leak.
      release();
    }
  }

  /**
   * Takes one of the user's export slots (429 beyond the cap, on every replica), then one of this
   * process's (503 when too many wait already), then opens the cursor. `release` gives both
   * slots back; on failure they are given back here.
   */
  private async openWithinLimits(request: ExportRequest): Promise<ExportCursor & { release: () => void }> {
    const releaseUserSlot = await this.userSlots.acquire(request.ownerId, this.config.limits.exportsPerUser);
    if (!releaseUserSlot) throw new TooManyRequestsError(TOO_MANY_EXPORTS, EXPORT_RETRY_AFTER_SECONDS);
    let releaseSlot: (() => void) | undefined;
    try {
      releaseSlot = await this.slots.acquire();
      if (!releaseSlot) {
        throw new ServiceUnavailableError(EXPORTS_BUSY, { retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS });
      }
      const cursor = await this.repository.open(
        {
          sunSourceId: request.sunSourceId,
          from: request.startDate,
          to: request.endDate,
          limit: this.rowLimit,
        },
        this.timeouts,
      );
      const releaseProcessSlot = releaseSlot;
      return {
        ...cursor,
        release: () => {
          releaseProcessSlot();
          releaseUserSlot();
        },
      };
    } catch (error) {
      releaseSlot?.();
      releaseUserSlot();
      throw error;
    }
  }
}

function isClientGone(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
}
