import { ForecastInput, ForecastWithPhysics, TrainedModel, TrainingInput } from '@solar/forecast';

/**
 * Runs the model (`trainForecaster`, `forecast` of libs/forecast) on plain data. Production trains
 * in a worker thread, so a training of several seconds never stalls the scheduler's event loop
 * (queue locks, crons, health), and forecasts, a few milliseconds each, in-process; tests may run
 * both in-process.
 */
export abstract class ForecastCompute {
  abstract train(input: TrainingInput): Promise<TrainedModel>;
  /** The served forecast and, from the same inputs in the same computation, the physics-only one. */
  abstract forecast(input: ForecastInput): Promise<ForecastWithPhysics>;
}

/** The model refused the data or failed on it: its message is the job's error. */
export class ForecastComputeError extends Error {
  override readonly name = 'ForecastComputeError';
}
