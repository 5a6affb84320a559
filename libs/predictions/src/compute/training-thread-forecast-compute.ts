import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { TrainedModel, TrainingInput } from '@solar/forecast';
import { ComputeMessage, TrainingRequest } from './compute-protocol';
import { ForecastComputeError } from './forecast-compute';
import { InProcessForecastCompute } from './in-process-forecast-compute';

/** Starts one thread that answers `request` (in its `workerData`) by the compute protocol. */
export type ComputeThreadFactory = (request: TrainingRequest) => Worker;

/** The compiled thread entry, beside this file in `dist/`. */
export const COMPUTE_THREAD_FILE = join(__dirname, 'forecast-compute.worker.js');

export const spawnComputeThread: ComputeThreadFactory = (request) =>
  new Worker(COMPUTE_THREAD_FILE, { workerData: request });

/** Longest a training may run before its thread is stopped: inside the active-job markers. */
export const TRAINING_TIME_LIMIT_MS = 25 * 60_000;

/**
 * Production's compute. A training (seconds, hundreds of MB) runs in a worker thread of its
 * own: the scheduler's event loop stays free meanwhile, its memory is returned when it ends, and
 * a crash ends the thread, not the process. Inputs and results cross by structured clone (plain
 * data and dates).
 *
 * A forecast runs on the caller's thread, as `InProcessForecastCompute` runs it: it takes a few
 * milliseconds, where starting a thread for it took about 100 ms and cloning the model into it
 * (up to a megabyte of JSON) cost the caller's thread more than the forecast itself
 * (docs/performance.md, "Scheduled forecasts of a fleet").
 */
export class TrainingThreadForecastCompute extends InProcessForecastCompute {
  constructor(
    private readonly spawn: ComputeThreadFactory = spawnComputeThread,
    private readonly limitMs = TRAINING_TIME_LIMIT_MS,
  ) {
    super();
  }

  override train({ onProgress, ...input }: TrainingInput): Promise<TrainedModel> {
    return new Promise((resolve, reject) => {
      const thread = this.spawn({ task: 'train', input });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
        // The thread has said its last word; make sure it is gone.
        void thread.terminate();
      };
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(
              new ForecastComputeError(`Computation stopped after ${Math.round(this.limitMs / 1000)} s`),
            ),
          ),
        this.limitMs,
      );
      thread.on('message', (message: ComputeMessage) => {
        if (message.kind === 'progress') onProgress?.(message.percent);
        else if (message.kind === 'result') settle(() => resolve(message.value as TrainedModel));
        else settle(() => reject(new ForecastComputeError(message.message)));
      });
      // A crash of the thread (out of memory, a module that does not load) is the machinery's.
      thread.on('error', (error) => settle(() => reject(error)));
      thread.on('exit', (code) =>
        settle(() => reject(new Error(`compute thread exited with code ${code} before answering`))),
      );
    });
  }
}
