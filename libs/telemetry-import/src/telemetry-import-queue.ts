import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { bullQueueConnection, logRedisErrors } from '@solar/redis';

export const TELEMETRY_IMPORT_QUEUE = 'telemetry-imports';
/** A finished import's report stays readable this long. */
export const IMPORT_JOB_RETENTION_SECONDS = 24 * 60 * 60;

/** What the worker needs to run an import. */
export interface TelemetryImportJobData {
  sunSourceId: string;
  ownerId: string;
  /** The upload in the spool. */
  file: string;
  timeZone?: string;
}

/** The producer side of the import queue (api), and where a job's state is read back. */
@Injectable()
export class TelemetryImportQueue implements OnModuleDestroy {
  private readonly queue: Queue<TelemetryImportJobData>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.queue = new Queue<TelemetryImportJobData>(TELEMETRY_IMPORT_QUEUE, {
      ...bullQueueConnection(config),
      defaultJobOptions: {
        // A worker that dies mid-import leaves the job stalled; BullMQ then runs it again from
        // the start, which stores only what was not stored yet.
        attempts: 1,
        removeOnComplete: { age: IMPORT_JOB_RETENTION_SECONDS },
        removeOnFail: { age: IMPORT_JOB_RETENTION_SECONDS },
      },
    });
    logRedisErrors(this.queue, 'telemetry import queue');
  }

  async add(jobId: string, data: TelemetryImportJobData): Promise<void> {
    await this.queue.add('import', data, { jobId });
  }

  async get(jobId: string): Promise<Job<TelemetryImportJobData> | undefined> {
    return this.queue.getJob(jobId);
  }

  async state(jobId: string): Promise<string> {
    return this.queue.getJobState(jobId);
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
  }
}
