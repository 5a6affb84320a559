import { ForecastInput, forecastWithPhysics, trainForecaster, TrainingInput } from '@solar/forecast';

/** What a compute thread is asked: plain data only, since it crosses a thread boundary. */
export interface TrainingRequest {
  task: 'train';
  input: Omit<TrainingInput, 'onProgress'>;
}

/** A request of the protocol: a training (in a thread, in production) or a forecast. */
export type ComputeRequest = TrainingRequest | { task: 'forecast'; input: ForecastInput };

/** What a compute thread says back: progress while training, then one result or one error. */
export type ComputeMessage =
  | { kind: 'progress'; percent: number }
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; message: string };

/**
 * Runs one request and reports through `post`: the same code in a worker thread and in-process.
 * An error the model throws is reported as a message, so the caller can tell it from a crash.
 */
export function runComputeRequest(request: ComputeRequest, post: (message: ComputeMessage) => void): void {
  try {
    const value =
      request.task === 'train'
        ? trainForecaster({ ...request.input, onProgress: (percent) => post({ kind: 'progress', percent }) })
        : forecastWithPhysics(request.input);
    post({ kind: 'result', value });
  } catch (error) {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}
