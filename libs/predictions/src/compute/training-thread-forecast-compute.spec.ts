import { Worker } from 'node:worker_threads';
import { ForecastInput, TrainingInput } from '@solar/forecast';
import { TrainingRequest } from './compute-protocol';
import { ForecastComputeError } from './forecast-compute';
import { TrainingThreadForecastCompute } from './training-thread-forecast-compute';

/**
 * The thread side of the protocol without the model: each fake thread is a few lines of
 * JavaScript that answer as a training thread would (or would not).
 */
function fakeThreads(body: string, exits: Array<Promise<number>> = [], started: TrainingRequest[] = []) {
  return (request: TrainingRequest) => {
    started.push(request);
    const thread = new Worker(`const { parentPort, workerData } = require('node:worker_threads');\n${body}`, {
      eval: true,
      workerData: request,
    });
    exits.push(new Promise((resolve) => thread.once('exit', resolve)));
    return thread;
  };
}

const site = { latitude: 52.52, longitude: 13.4, capacityWatts: null, batteryCapacityWh: null };
const now = new Date('2026-06-10T10:00:00Z');
const trainingInput = (onProgress?: (percent: number) => void): TrainingInput => ({
  site,
  history: [{ hour: new Date('2026-06-10T09:00:00Z'), solarPower: 1200, loadPower: 400, stateOfCharge: 80 }],
  weather: [],
  now,
  onProgress,
});
const forecastInput: ForecastInput = { site, model: null, history: [], weather: [], now };

describe('TrainingThreadForecastCompute', () => {
  it('hands plain data to the thread (dates intact, no callback) and relays progress and the result', async () => {
    const compute = new TrainingThreadForecastCompute(
      fakeThreads(`
        parentPort.postMessage({ kind: 'progress', percent: 40 });
        parentPort.postMessage({ kind: 'progress', percent: 90 });
        const input = workerData.input;
        parentPort.postMessage({ kind: 'result', value: {
          task: workerData.task,
          nowIsDate: input.now instanceof Date,
          hourIsDate: input.history.every((point) => point.hour instanceof Date),
          keys: Object.keys(input).sort(),
        } });`),
    );
    const progress: number[] = [];
    await expect(compute.train(trainingInput((percent) => progress.push(percent)))).resolves.toEqual({
      task: 'train',
      nowIsDate: true,
      hourIsDate: true,
      keys: ['history', 'now', 'site', 'weather'],
    });
    expect(progress).toEqual([40, 90]);
  });

  it('forecasts on the caller’s thread: no thread is started, the model answers', async () => {
    const started: TrainingRequest[] = [];
    const compute = new TrainingThreadForecastCompute(fakeThreads(`process.exit(1);`, [], started));
    const { forecast, physics } = await compute.forecast({
      ...forecastInput,
      site: { ...site, capacityWatts: 4000 },
    });
    expect(started).toEqual([]);
    expect(forecast.hourly).toHaveLength(168);
    // Without a model the served forecast is the physics-only one, so none is given beside it.
    expect(physics).toBeNull();
    // The physics-only forecast of a 4 kW array in Berlin in June produces by day.
    expect(Math.max(...forecast.hourly.map((hour) => hour.solarPower))).toBeGreaterThan(1000);
  });

  it('rejects with the model’s own message when the model refuses', async () => {
    const compute = new TrainingThreadForecastCompute(
      fakeThreads(`parentPort.postMessage({ kind: 'error', message: 'history has no solar power' });`),
    );
    const failure = compute.train(trainingInput());
    await expect(failure).rejects.toThrow(ForecastComputeError);
    await expect(failure).rejects.toThrow('history has no solar power');
  });

  it('rejects with a plain error when the thread crashes or ends without an answer', async () => {
    const crashing = new TrainingThreadForecastCompute(fakeThreads(`throw new Error('out of memory');`));
    const crash = crashing.train(trainingInput());
    await expect(crash).rejects.toThrow('out of memory');
    await expect(crash).rejects.not.toBeInstanceOf(ForecastComputeError);

    const silent = new TrainingThreadForecastCompute(fakeThreads(`process.exit(3);`));
    await expect(silent.train(trainingInput())).rejects.toThrow('exited with code 3 before answering');
  });

  it('stops a training that runs past its limit, thread included', async () => {
    const exits: Array<Promise<number>> = [];
    const compute = new TrainingThreadForecastCompute(
      fakeThreads(`setInterval(() => {}, 1000);`, exits),
      100,
    );
    await expect(compute.train(trainingInput())).rejects.toThrow('Computation stopped after');
    expect(exits).toHaveLength(1);
    // The thread would tick forever: that it exits at all means it was stopped.
    await expect(exits[0]).resolves.toEqual(expect.any(Number));
  });
});
