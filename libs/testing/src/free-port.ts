import { AddressInfo, createServer } from 'node:net';

/** A TCP port on loopback that nothing listens on right now (for a broker, proxy or app). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
