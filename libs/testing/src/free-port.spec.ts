import { AddressInfo, createServer } from 'node:net';
import { freePort } from './free-port';

describe('freePort', () => {
  it("gives this worker's own ports, below the kernel's ephemeral range, each one once", async () => {
    const worker = Number(process.env.JEST_WORKER_ID);
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000 + (worker - 1) * 1_500);
      expect(port).toBeLessThan(20_000 + worker * 1_500);
    }
  });

  it('gives a port an app can listen on', async () => {
    const port = await freePort();
    const server = createServer();
    const listening = new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
    await expect(listening).resolves.toBe(port);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('outside Jest workers asks the kernel for any port', async () => {
    const worker = process.env.JEST_WORKER_ID;
    delete process.env.JEST_WORKER_ID;
    try {
      const port = await freePort();
      expect(port < 20_000 || port >= 32_000).toBe(true);
    } finally {
      process.env.JEST_WORKER_ID = worker;
    }
  });
});
