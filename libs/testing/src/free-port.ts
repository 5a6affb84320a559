import { AddressInfo, createServer } from 'node:net';

/**
 * Ports below the kernel's ephemeral range (Linux: 32768 and up), one block per Jest worker. A
 * port from `listen(0)` is free only until it is closed: until the app given it listens, another
 * worker's `listen(0)` or any outgoing connection can take it, and an app could then answer for
 * another suite. Outgoing connections never take a port below that range, and each worker hands
 * out its own block, so a port given here stays ours.
 */
const WORKER_PORTS_START = 20_000;
const PORTS_PER_WORKER = 1_500;
/** Workers with a block of their own: 20000–31999, below 32768. */
const MAX_WORKERS = 8;

let nextInBlock = Math.floor(Math.random() * PORTS_PER_WORKER);

/** A TCP port on loopback that nothing listens on right now (for a broker, proxy or app). */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID);
  if (!Number.isInteger(worker) || worker < 1 || worker > MAX_WORKERS) return listenOn(0);
  const blockStart = WORKER_PORTS_START + (worker - 1) * PORTS_PER_WORKER;
  for (let tries = 0; tries < PORTS_PER_WORKER; tries++) {
    const port = blockStart + (nextInBlock++ % PORTS_PER_WORKER);
    const free = await listenOn(port).then(
      () => true,
      () => false,
    );
    if (free) return port;
  }
  throw new Error(`freePort: no free port in ${blockStart}..${blockStart + PORTS_PER_WORKER - 1}`);
}

/** Listens on `port` (0: any), closes again and gives the port. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}
