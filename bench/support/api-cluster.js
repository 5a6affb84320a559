'use strict';
/**
 * `bench:ingest --api-processes N`: the built api as N processes sharing its port through Node's
 * cluster module, as N replicas behind a balancer would share the load. Usage:
 * `node bench/support/api-cluster.js dist/apps/api/src/main.js N`. SIGTERM and SIGINT go to every
 * worker; the primary exits once all have, with the first non-zero code.
 */
const cluster = require('node:cluster');
const path = require('node:path');

const [main, count] = process.argv.slice(2);
if (cluster.isPrimary) {
  const workers = Array.from({ length: Number(count) }, () => cluster.fork());
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => workers.forEach((worker) => worker.process.kill(signal)));
  }
  let exited = 0;
  let code = 0;
  cluster.on('exit', (_worker, workerCode) => {
    code ||= workerCode ?? 1;
    if (++exited === workers.length) process.exit(code);
  });
} else {
  require(path.resolve(main));
}
