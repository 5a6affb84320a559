import { Module } from '@nestjs/common';
import { PredictionJobStore } from './jobs/prediction-job.store';
import { ForecastModelRepository } from './storage/forecast-model.repository';
import { PredictionHistoryRepository } from './storage/prediction-history.repository';
import { PredictionRepository } from './storage/prediction.repository';

/** Job records and markers (Redis), models and forecasts (PostgreSQL): shared by api and worker. */
@Module({
  providers: [PredictionJobStore, ForecastModelRepository, PredictionRepository, PredictionHistoryRepository],
  exports: [PredictionJobStore, ForecastModelRepository, PredictionRepository, PredictionHistoryRepository],
})
export class PredictionStorageModule {}
