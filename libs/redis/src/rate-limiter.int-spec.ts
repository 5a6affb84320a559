import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createRedisPrefix, TEST_REDIS_URL } from '@solar/testing';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter, against a real Redis', () => {
  const { prefix, cleanup } = createRedisPrefix();
  // Two clients, as two api processes would have.
  const clients = [
    new Redis(TEST_REDIS_URL, { keyPrefix: prefix }),
    new Redis(TEST_REDIS_URL, { keyPrefix: prefix }),
  ];
  const [here, there] = clients.map((client) => new RateLimiter(client));

  afterAll(async () => {
    await cleanup();
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('lets exactly `limit` of a parallel burst through, across two clients', async () => {
    const bucket = { key: randomUUID(), limit: 5, windowSeconds: 60 };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? here : there).consume([bucket])),
    );
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(5);
    expect(answers.filter((answer) => answer === 60)).toHaveLength(35);
  });

  it('charges no bucket when one is full', async () => {
    const full = { key: randomUUID(), limit: 1, windowSeconds: 60 };
    const open = { key: randomUUID(), limit: 2, windowSeconds: 60 };
    expect(await here.consume([full])).toBeUndefined();
    for (let i = 0; i < 5; i += 1) expect(await here.consume([open, full])).toBe(60);
    // The refused requests took nothing from `open`: two still pass.
    expect(await here.consume([open])).toBeUndefined();
    expect(await here.consume([open])).toBeUndefined();
    expect(await here.consume([open])).toBe(60);
  });

  it('answers the seconds left of the longest full window, rounded up', async () => {
    const short = { key: randomUUID(), limit: 1, windowSeconds: 5 };
    const long = { key: randomUUID(), limit: 1, windowSeconds: 30 };
    await here.consume([short]);
    await here.consume([long]);
    const started = Date.now();
    const wait = await here.consume([short]);
    const waitBoth = await here.consume([short, long]);
    const elapsed = Math.ceil((Date.now() - started) / 1000);
    expect(wait).toBeLessThanOrEqual(5);
    expect(wait).toBeGreaterThanOrEqual(5 - elapsed);
    expect(waitBoth).toBeLessThanOrEqual(30);
    expect(waitBoth).toBeGreaterThanOrEqual(30 - elapsed);
  });

  it('lets requests through again once the window has ended, refused ones notwithstanding', async () => {
    const bucket = { key: randomUUID(), limit: 2, windowSeconds: 2 };
    const started = Date.now();
    expect(await here.consume([bucket])).toBeUndefined();
    // The window began between `started` and now.
    const windowBeganBy = Date.now();
    expect(await here.consume([bucket])).toBeUndefined();
    let refused = 0;
    while (Date.now() - started < 1200) {
      expect(await there.consume([bucket])).toBeGreaterThanOrEqual(1);
      refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refused).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, windowBeganBy + 2050 - Date.now())));
    expect(await here.consume([bucket])).toBeUndefined();
  });
});
