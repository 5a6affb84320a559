import { ForecastInput, ForecastWithPhysics, TrainedModel, TrainingInput } from '@solar/forecast';
import { ComputeMessage, ComputeRequest, runComputeRequest } from './compute-protocol';
import { ForecastCompute, ForecastComputeError } from './forecast-compute';

/**
 * The model on the caller's thread, through the same protocol as the training thread: forecasts
 * in production (`TrainingThreadForecastCompute`), and trainings too in tests (Jest runs
 * TypeScript sources, which a bare worker thread cannot load) and one-off tools.
 */
export class InProcessForecastCompute extends ForecastCompute {
  async train({ onProgress, ...input }: TrainingInput): Promise<TrainedModel> {
    return (await run({ task: 'train', input }, onProgress)) as TrainedModel;
  }

  async forecast(input: ForecastInput): Promise<ForecastWithPhysics> {
    return (await run({ task: 'forecast', input })) as ForecastWithPhysics;
  }
}

async function run(request: ComputeRequest, onProgress?: (percent: number) => void): Promise<unknown> {
  // Starts on a later tick, as a thread would: the caller's own awaits come first.
  await new Promise((resolve) => setImmediate(resolve));
  let outcome: ComputeMessage | undefined;
  runComputeRequest(request, (message) => {
    if (message.kind === 'progress') onProgress?.(message.percent);
    else outcome = message;
  });
  if (outcome?.kind === 'result') return outcome.value;
  throw new ForecastComputeError(outcome?.kind === 'error' ? outcome.message : 'no result');
}
