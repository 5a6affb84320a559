import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { NotFoundError, ServiceUnavailableError } from '@solar/core';
import { SourceAccessCache } from '@solar/domain';
import { emptyImportReport, ImportReport } from './import-report';
import { ImportSpool } from './import-spool';
import { TelemetryImporter } from './telemetry-importer';
import { TelemetryImportQueue } from './telemetry-import-queue';

export const IMPORT_JOB_NOT_FOUND = 'Import job not found';
export const IMPORT_UNAVAILABLE = 'Imports are unavailable. Try again later.';

/** A small file's report, or the job a large one runs as. */
export type ImportStarted = { kind: 'report'; report: ImportReport } | { kind: 'job'; jobId: string };

export const IMPORT_JOB_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportJobState = (typeof IMPORT_JOB_STATES)[number];

/** An import job as its owner sees it: its state and the counts so far (final once completed). */
export interface ImportJobView extends ImportReport {
  state: ImportJobState;
  /** Why a failed job stopped; null otherwise. */
  error: string | null;
}

const NOTHING_YET: ImportReport = emptyImportReport();

/**
 * The owner's imports (`POST /api/sunsourcedata/{id}/import`): the upload is spooled to a file
 * first, then a file up to `IMPORT_INLINE_MAX_BYTES` is imported at once and answered with its
 * report, a larger one is handed to the scheduler's worker as a job (`docs/import.md`).
 */
@Injectable()
export class TelemetryImports {
  private readonly logger = new Logger(TelemetryImports.name);

  constructor(
    private readonly access: SourceAccessCache,
    private readonly spool: ImportSpool,
    private readonly importer: TelemetryImporter,
    private readonly queue: TelemetryImportQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(
    ownerId: string,
    sunSourceId: string,
    upload: () => Promise<Readable>,
    options: { timeZone?: string } = {},
  ): Promise<ImportStarted> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    const { importMaxBytes, importInlineMaxBytes } = this.config.limits;
    const spooled = await this.spool.write(await upload(), importMaxBytes);
    if (spooled.bytes <= importInlineMaxBytes) {
      try {
        return {
          kind: 'report',
          report: await this.importer.run(sunSourceId, this.spool.open(spooled.name), options),
        };
      } finally {
        await this.spool.remove(spooled.name);
      }
    }
    try {
      await this.importer.checkHeader(this.spool.open(spooled.name), options.timeZone);
    } catch (error) {
      await this.spool.remove(spooled.name);
      throw error;
    }
    const jobId = randomUUID();
    try {
      await this.queue.add(jobId, { sunSourceId, ownerId, file: spooled.name, timeZone: options.timeZone });
    } catch (error) {
      this.logger.error({ err: error, sunSourceId }, 'could not enqueue an import');
      await this.spool.remove(spooled.name);
      throw new ServiceUnavailableError(IMPORT_UNAVAILABLE, { cause: error });
    }
    return { kind: 'job', jobId };
  }

  /** Another user's job, a job of another source and an unknown one are the same 404. */
  async status(ownerId: string, sunSourceId: string, jobId: string): Promise<ImportJobView> {
    // The state first: read after the job, it could say "completed" of a job read while it ran.
    const state = await this.queue.state(jobId);
    const job = await this.queue.get(jobId);
    if (!job || job.data.ownerId !== ownerId || job.data.sunSourceId !== sunSourceId) {
      throw new NotFoundError(IMPORT_JOB_NOT_FOUND);
    }
    if (state === 'completed') return { state, error: null, ...(job.returnvalue as ImportReport) };
    const progress = isReport(job.progress) ? job.progress : NOTHING_YET;
    if (state === 'failed') return { state, error: job.failedReason ?? null, ...progress };
    return { state: state === 'active' ? 'running' : 'queued', error: null, ...progress };
  }
}

function isReport(progress: unknown): progress is ImportReport {
  return typeof progress === 'object' && progress !== null && 'rowsRead' in progress;
}
