import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { ForecastAccuracyService } from './accuracy/forecast-accuracy.service';
import { PredictionJobsService } from './jobs/prediction-jobs.service';
import { PredictionQueue } from './jobs/prediction-queue';
import { PredictionStorageModule } from './prediction-storage.module';

/**
 * The api's side of forecasting: starts jobs on the queue, reports on them, reads results and
 * scores the kept day-ahead forecasts.
 */
@Module({
  imports: [SunSourcesModule, PredictionStorageModule],
  providers: [PredictionQueue, PredictionJobsService, ForecastAccuracyService],
  exports: [PredictionJobsService, ForecastAccuracyService],
})
export class PredictionsModule {}
