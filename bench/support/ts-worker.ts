import { join } from 'node:path';
import { ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A worker thread running one of the bench's TypeScript files (`file`, absolute), compiled by
 * the same require hook as the bench itself (bench/register.js).
 */
export function startTsWorker(file: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  return new Worker(`require(${JSON.stringify(file)})`, {
    eval: true,
    workerData,
    execArgv: ['--require', join(__dirname, '..', 'register.js')],
    resourceLimits,
  });
}
