import { parentPort, workerData } from 'node:worker_threads';
import { ComputeMessage, runComputeRequest, TrainingRequest } from './compute-protocol';

/**
 * Entry point of a training thread (`TrainingThreadForecastCompute`): one request in
 * `workerData`, its messages back to the parent, then the thread ends.
 */
if (parentPort) {
  const port = parentPort;
  runComputeRequest(workerData as TrainingRequest, (message: ComputeMessage) => port.postMessage(message));
}
