import { parentPort, workerData } from 'node:worker_threads';
import { ComputeMessage, ComputeRequest, runComputeRequest } from './compute-protocol';

/**
 * Entry point of a training thread (`TrainingThreadForecastCompute`): one request in
 * `workerData`, its messages back to the parent, then the thread ends.
 */
if (parentPort) {
  const port = parentPort;
  runComputeRequest(workerData as ComputeRequest, (message: ComputeMessage) => port.postMessage(message));
}
