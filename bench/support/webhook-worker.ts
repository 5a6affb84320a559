import { parentPort, workerData } from 'node:worker_threads';
import { runSockets, WebhookRunOptions } from './webhook-load';

/**
 * One `sockets` webhook run in a worker thread (`runWebhookLoad`): its own heap, so the bench's
 * large main heap (seeded fleets, earlier phases' results) never pauses the sends and answers
 * of a run for a full collection.
 */
void runSockets(workerData as WebhookRunOptions).then(
  (result) => parentPort!.postMessage({ result }),
  (error: unknown) => parentPort!.postMessage({ error: String(error) }),
);
