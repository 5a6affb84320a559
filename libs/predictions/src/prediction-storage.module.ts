import { Module } from '@nestjs/common';
import { PredictionJobStore } from './jobs/prediction-job.store';
import { DayAheadForecastRepository } from './storage/day-ahead-forecast.repository';
import { ForecastModelRepository } from './storage/forecast-model.repository';
import { PredictionHistoryRepository } from './storage/prediction-history.repository';
import { PredictionRepository } from './storage/prediction.repository';

/** Job records and markers (Redis), models and forecasts (PostgreSQL): shared by api and worker. */
const PROVIDERS = [
  PredictionJobStore,
  ForecastModelRepository,
  PredictionRepository,
  PredictionHistoryRepository,
  DayAheadForecastRepository,
];

@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class PredictionStorageModule {}
