import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { logRedisErrors } from '@solar/redis';
import { QueuedPredictionJob } from '../jobs/prediction-job';
import { PREDICTION_QUEUE, predictionQueueConnection } from '../jobs/prediction-queue';
import { PredictionRunner } from './prediction-runner';

/**
 * The consumer of the `predictions` queue, in the scheduler: one job at a time per process
 * (each one keeps a compute thread busy). Jobs enqueued while no worker runs wait in Redis and
 * run when one starts.
 */
@Injectable()
export class PredictionWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PredictionWorker.name);
  private worker?: Worker<QueuedPredictionJob>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: PredictionRunner,
  ) {}

  onApplicationBootstrap(): void {
    const worker = new Worker<QueuedPredictionJob>(
      PREDICTION_QUEUE,
      (job) => this.runner.runQueued(job.data),
      {
        ...predictionQueueConnection(this.config),
        concurrency: 1,
      },
    );
    // BullMQ opens the connections and passes their errors on here.
    logRedisErrors(worker, 'prediction worker');
    // Reached only when our processor did not finish the job itself (a stalled job given up on).
    worker.on('failed', (job, error) => {
      this.logger.error({ err: error, jobId: job?.id }, 'prediction job given up by the queue');
      if (job) {
        this.runner.abandon(job.data).catch((cause: unknown) => {
          this.logger.warn({ err: cause, jobId: job.id }, 'could not record the abandoned job');
        });
      }
    });
    this.worker = worker;
  }

  /** Before the database and Redis close: a job under way finishes first. */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
