import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { bullQueueConnection, logRedisErrors } from '@solar/redis';
import { ImportReport } from './import-report';
import { ImportSpool } from './import-spool';
import { TelemetryImporter } from './telemetry-importer';
import { TELEMETRY_IMPORT_QUEUE, TelemetryImportJobData } from './telemetry-import-queue';

/**
 * The consumer of the import queue, in the scheduler: one import at a time per process (an import
 * keeps the writer's batches full; two would only share the same database). The counts so far are
 * the job's progress; the report is its result.
 */
@Injectable()
export class TelemetryImportWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TelemetryImportWorker.name);
  private worker?: Worker<TelemetryImportJobData, ImportReport>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly importer: TelemetryImporter,
    private readonly spool: ImportSpool,
  ) {}

  onApplicationBootstrap(): void {
    const worker = new Worker<TelemetryImportJobData, ImportReport>(
      TELEMETRY_IMPORT_QUEUE,
      (job) => this.run(job),
      { ...bullQueueConnection(this.config), concurrency: 1 },
    );
    logRedisErrors(worker, 'telemetry import worker');
    worker.on('failed', (job, error) => {
      this.logger.warn({ err: error, jobId: job?.id }, 'telemetry import failed');
    });
    this.worker = worker;
  }

  /** Before the database and Redis close: an import under way finishes first. */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  private async run(job: Job<TelemetryImportJobData, ImportReport>): Promise<ImportReport> {
    const { sunSourceId, file, timeZone } = job.data;
    let progress = Promise.resolve();
    try {
      const report = await this.importer.run(sunSourceId, this.spool.open(file), {
        timeZone,
        // In order, without holding the import up; a lost update is only a stale count.
        onProgress: (counts) => {
          progress = progress.then(() => job.updateProgress({ ...counts })).catch(() => undefined);
        },
      });
      await progress;
      return report;
    } finally {
      await this.spool.remove(file);
    }
  }
}
