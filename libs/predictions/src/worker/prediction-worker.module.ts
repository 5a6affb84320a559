import { DynamicModule, Module } from '@nestjs/common';
import { SunSourcesModule, WeatherModule } from '@solar/domain';
import { ForecastCompute } from '../compute/forecast-compute';
import { TrainingThreadForecastCompute } from '../compute/training-thread-forecast-compute';
import { PredictionStorageModule } from '../prediction-storage.module';
import { PredictionRunner } from './prediction-runner';
import { PredictionWorker } from './prediction-worker';
import { ScheduledPredictions } from './scheduled-predictions';

export interface PredictionWorkerOptions {
  /** Where the model runs; default: a worker thread per training, forecasts on this thread. */
  compute?: ForecastCompute;
  /** false: no queue consumer here (a one-off `npm run job`); scheduled runs still work. */
  consume?: boolean;
}

/** The scheduler's side of forecasting: the queue consumer, the job runner and the scheduled run. */
@Module({})
export class PredictionWorkerModule {
  static forRoot(options: PredictionWorkerOptions = {}): DynamicModule {
    return {
      module: PredictionWorkerModule,
      imports: [SunSourcesModule, WeatherModule, PredictionStorageModule],
      providers: [
        { provide: ForecastCompute, useValue: options.compute ?? new TrainingThreadForecastCompute() },
        PredictionRunner,
        ScheduledPredictions,
        ...(options.consume === false ? [] : [PredictionWorker]),
      ],
      exports: [PredictionRunner, ScheduledPredictions],
    };
  }
}
