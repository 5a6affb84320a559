import { Inject, Injectable, Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestError, Clock, SourceAccessCache } from '@solar/domain';
import { CsvExportEncoder } from './csv-export-encoder';
import { ExportFormat, exportFileName } from './export-file-name';
import { ExportSlots } from './export-slots';
import { TelemetryExportRepository } from './telemetry-export.repository';
import { writeXlsxExport } from './xlsx-export-writer';

/** Injection token of the most records one export holds (SPEC.md §8: 500,000). */
export const EXPORT_ROW_LIMIT = 'EXPORT_ROW_LIMIT';
export const DEFAULT_EXPORT_ROW_LIMIT = 500_000;
/** SPEC.md §8: 33 days, exactly; one millisecond more is refused. */
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

/** Exports beyond this many at once wait for a slot (see ExportSlots). */
export const MAX_CONCURRENT_EXPORTS = 4;

/**
 * CSV and Excel export of one source's telemetry (SPEC.md §4.10), streamed from a database
 * cursor to the destination, so memory stays flat whatever the size.
 */
@Injectable()
export class TelemetryExportService {
  private readonly logger = new Logger(TelemetryExportService.name);
  private readonly slots = new ExportSlots(MAX_CONCURRENT_EXPORTS);

  constructor(
    private readonly access: SourceAccessCache,
    private readonly repository: TelemetryExportRepository,
    private readonly clock: Clock,
    @Inject(EXPORT_ROW_LIMIT) private readonly rowLimit: number,
  ) {}

  /**
   * Checks the request, then calls `start` with the file's name and type and streams the file
   * into the destination it returns. Rejects (with a domain error) only before `start`: once
   * the first byte may have left, a failure is logged and the destination destroyed, so that
   * the client sees a broken transfer rather than a complete-looking file.
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

    const releaseSlot = await this.slots.acquire();
    const cursor = await this.repository
      .open({
        sunSourceId: request.sunSourceId,
        from: startDate,
        to: endDate,
        limit: this.rowLimit,
      })
      .catch((error: unknown) => {
        releaseSlot();
        throw error;
      });
    const { rows, truncated } = cursor;
    rows.once('close', releaseSlot);

    let destination: Writable | undefined;
    try {
      const now = this.clock.now();
      destination = start({
        fileName: exportFileName(source.name, now, format),
        contentType: EXPORT_CONTENT_TYPES[format],
        truncated,
      });
      if (format === 'csv') await pipeline(rows, new CsvExportEncoder(), destination);
      else await writeXlsxExport(rows, destination, { from: startDate, to: endDate, truncated, now });
    } catch (error) {
      // Break the transfer off: a response ended normally here would look complete.
      rows.destroy();
      destination?.destroy();
      if (isClientGone(error))
        this.logger.debug(`export of ${request.sunSourceId} stopped: the client went away`);
      else
        this.logger.error({ err: error, sunSourceId: request.sunSourceId }, 'export failed while streaming');
    } finally {
      // Normally the rows have closed already; this only makes sure a slot can never leak.
      releaseSlot();
    }
  }
}

function isClientGone(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
}
