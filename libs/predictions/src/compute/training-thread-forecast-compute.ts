import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ForecastInput, ForecastWithPhysics, TrainedModel, TrainingInput } from '@solar/forecast';
import { ComputeMessage, ComputeRequest } from './compute-protocol';
import { ForecastCompute, ForecastComputeError } from './forecast-compute';

/** Starts one thread that answers `request` (in its `workerData`) by the compute protocol. */
export type ComputeThreadFactory = (request: ComputeRequest) => Worker;

/** The compiled thread entry, beside this file in `dist/`. */
export const COMPUTE_THREAD_FILE = join(__dirname, 'forecast-compute.worker.js');

export const spawnComputeThread: ComputeThreadFactory = (request) =>
  new Worker(COMPUTE_THREAD_FILE, { workerData: request });

/** Longest a computation may run before its thread is stopped: inside the active-job markers. */
export const COMPUTE_TIME_LIMIT_MS = { train: 25 * 60_000, forecast: 5 * 60_000 } as const;

/**
 * The model in a worker thread of its own, one thread per computation: the scheduler's event
 * loop stays free while it runs, its memory is returned when it ends, and a crash ends the
 * thread, not the process. Inputs and results cross by structured clone (plain data and dates).
 */
export class WorkerThreadForecastCompute extends ForecastCompute {
  constructor(
    private readonly spawn: ComputeThreadFactory = spawnComputeThread,
    private readonly limits: Record<ComputeRequest['task'], number> = COMPUTE_TIME_LIMIT_MS,
  ) {
    super();
  }

  async train({ onProgress, ...input }: TrainingInput): Promise<TrainedModel> {
    return (await this.run({ task: 'train', input }, onProgress)) as TrainedModel;
  }

  async forecast(input: ForecastInput): Promise<ForecastWithPhysics> {
    return (await this.run({ task: 'forecast', input })) as ForecastWithPhysics;
  }

  private run(request: ComputeRequest, onProgress?: (percent: number) => void): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const thread = this.spawn(request);
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
        // The thread has said its last word; make sure it is gone.
        void thread.terminate();
      };
      const limit = this.limits[request.task];
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(new ForecastComputeError(`Computation stopped after ${Math.round(limit / 1000)} s`)),
          ),
        limit,
      );
      thread.on('message', (message: ComputeMessage) => {
        if (message.kind === 'progress') onProgress?.(message.percent);
        else if (message.kind === 'result') settle(() => resolve(message.value));
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
