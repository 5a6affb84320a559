import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { PredictionJobsService } from './jobs/prediction-jobs.service';
import { PredictionQueue } from './jobs/prediction-queue';
import { PredictionStorageModule } from './prediction-storage.module';

/** The api's side of forecasting: starts jobs on the queue, reports on them, reads results. */
@Module({
  imports: [SunSourcesModule, PredictionStorageModule],
  providers: [PredictionQueue, PredictionJobsService],
  exports: [PredictionJobsService],
})
export class PredictionsModule {}
