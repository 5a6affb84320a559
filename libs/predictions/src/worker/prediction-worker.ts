import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { QUEUE_STATES, queueJobDuration, queueJobFailures, queueJobs } from '@solar/monitoring';
import { bullQueueConnection, logRedisErrors } from '@solar/redis';
import { PredictionJobStatus, QueuedPredictionJob } from '../jobs/prediction-job';
import { PREDICTION_QUEUE } from '../jobs/prediction-queue';
import { PredictionRunner } from './prediction-runner';

/**
 * The consumer of the `predictions` queue, in the scheduler: one job at a time per process
 * (each one keeps a compute thread busy). Jobs enqueued while no worker runs wait in Redis and
 * run when one starts. It also reports the queue's depth and each job's duration and failure
 * to the metrics (docs/operations.md).
 */
@Injectable()
export class PredictionWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PredictionWorker.name);
  private worker?: Worker<QueuedPredictionJob>;
  /** Read at scrape time for the queue's depth; BullMQ's worker cannot count jobs. */
  private counts?: Queue;
  private stopReporting?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: PredictionRunner,
  ) {}

  onApplicationBootstrap(): void {
    const worker = new Worker<QueuedPredictionJob>(PREDICTION_QUEUE, (job) => this.run(job.data), {
      ...bullQueueConnection(this.config),
      concurrency: 1,
    });
    // BullMQ opens the connections and passes their errors on here.
    logRedisErrors(worker, 'prediction worker');
    // Reached only when our processor did not finish the job itself (a stalled job given up on).
    worker.on('failed', (job, error) => {
      if (job) queueJobFailures.inc({ queue: PREDICTION_QUEUE, type: job.data.type, reason: 'abandoned' });
      this.logger.error({ err: error, jobId: job?.id }, 'prediction job given up by the queue');
      if (job) {
        this.runner.abandon(job.data).catch((cause: unknown) => {
          this.logger.warn({ err: cause, jobId: job.id }, 'could not record the abandoned job');
        });
      }
    });
    this.worker = worker;
    const counts = new Queue(PREDICTION_QUEUE, bullQueueConnection(this.config));
    logRedisErrors(counts, 'prediction queue counts');
    this.counts = counts;
    this.stopReporting = queueJobs.report(async () => {
      const byState = await counts.getJobCounts(...QUEUE_STATES);
      return QUEUE_STATES.map((state) => ({
        labels: { queue: PREDICTION_QUEUE, state },
        value: byState[state] ?? 0,
      }));
    });
  }

  /** Before the database and Redis close: a job under way finishes first. */
  async onModuleDestroy(): Promise<void> {
    this.stopReporting?.();
    await this.worker?.close();
    await this.counts?.close();
  }

  private async run(job: QueuedPredictionJob): Promise<PredictionJobStatus> {
    const startedAt = performance.now();
    const status = await this.runner.runQueued(job);
    const labels = { queue: PREDICTION_QUEUE, type: job.type };
    queueJobDuration.observe({ ...labels, status }, (performance.now() - startedAt) / 1000);
    if (status === 'failed') queueJobFailures.inc({ ...labels, reason: 'failed' });
    return status;
  }
}
