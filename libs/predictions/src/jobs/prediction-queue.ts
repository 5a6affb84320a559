import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { bullQueueConnection, logRedisErrors } from '@solar/redis';
import { QueuedPredictionJob } from './prediction-job';

export const PREDICTION_QUEUE = 'predictions';

/**
 * The producer side of the `predictions` queue (api): one queue entry per job, under the job's
 * own id. Finished entries are dropped at once: the job record in Redis is the history.
 */
@Injectable()
export class PredictionQueue implements OnModuleDestroy {
  private readonly queue: Queue<QueuedPredictionJob>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.queue = new Queue<QueuedPredictionJob>(PREDICTION_QUEUE, {
      ...bullQueueConnection(config),
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
    });
    // BullMQ opens the connections and passes their errors on here.
    logRedisErrors(this.queue, 'prediction queue');
  }

  async add(job: QueuedPredictionJob): Promise<void> {
    await this.queue.add(job.type, job, { jobId: job.jobId });
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
  }
}
