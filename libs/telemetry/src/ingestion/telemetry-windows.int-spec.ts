import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisPrefix, TEST_REDIS_URL, testConfig } from '@solar/testing';
import { IMPORTED_ROW, MAX_SOURCE_BATCH, Sender, TelemetryWindows } from './telemetry-windows';

const prefix = createRedisPrefix();
let redis: Redis;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL, { keyPrefix: prefix.prefix });
});

afterAll(async () => {
  redis.disconnect();
  await prefix.cleanup();
});

describe('TelemetryWindows: the arrival budget', () => {
  let windows: TelemetryWindows;

  beforeAll(() => {
    const config = testConfig({ SOURCE_MESSAGE_BUDGET: '2', SOURCE_MESSAGE_BUDGET_WINDOW_SECONDS: '1' });
    windows = new TelemetryWindows(redis, config);
  });

  const now = new Date();
  const admit = (sunSourceId: string, offsetMs: number) =>
    windows.admit(sunSourceId, new Date(now.getTime() + offsetMs), now, {
      mode: 'device',
      fingerprint: randomUUID(),
    });

  it('refuses past the budget until the window ends, whatever the other verdicts were', async () => {
    const source = randomUUID();
    expect(await admit(source, 0)).toEqual({ status: 'admitted', beyondMemory: false });
    expect(await admit(source, 1)).toEqual({ status: 'throttled' });
    expect(await admit(source, 20_000)).toEqual({ status: 'overBudget', retryAfterSeconds: 1 });
    expect(await admit(randomUUID(), 0)).toEqual({ status: 'admitted', beyondMemory: false });

    await sleep(1_100);
    expect(await admit(source, 20_000)).toEqual({ status: 'admitted', beyondMemory: false });
  });
});

describe('TelemetryWindows: the messages of one turn of the event loop', () => {
  let windows: TelemetryWindows;

  beforeAll(() => {
    windows = new TelemetryWindows(redis, testConfig({ SOURCE_MESSAGE_BUDGET: '3' }));
  });

  const now = new Date();
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
  const device = (fingerprint: string): Sender => ({ mode: 'device', fingerprint });

  it('are judged in order, each against the ones before it, as one call per message would be', async () => {
    const source = randomUUID();
    const verdicts = await Promise.all([
      windows.admit(source, at(0), now, device('a')),
      windows.admit(source, at(5_000), now, device('b')),
      windows.admit(source, at(0), now, device('a')),
      windows.admit(source, at(0), now, device('c')),
      windows.admit(source, at(-20_000), now, device('d')),
      windows.admit(randomUUID(), at(0), now, device('a')),
    ]);
    expect(verdicts).toEqual([
      { status: 'admitted', beyondMemory: false },
      { status: 'throttled' },
      { status: 'duplicate' },
      // The budget of 3 is spent by the first three.
      { status: 'overBudget', retryAfterSeconds: expect.any(Number) },
      { status: 'overBudget', retryAfterSeconds: expect.any(Number) },
      { status: 'admitted', beyondMemory: false },
    ]);
    expect(await redis.keys(`*{${source}}:seen:*`)).toHaveLength(2);
  });

  it('imported rows spend no budget and leave no duplicate marker, however many arrive at once', async () => {
    const source = randomUUID();
    const old = new Date(now.getTime() - 3 * 86_400_000);
    const rows = Array.from({ length: MAX_SOURCE_BATCH + 5 }, (_, index) =>
      windows.admit(source, new Date(old.getTime() + index * 10_000), now, IMPORTED_ROW),
    );
    // A neighbour of the first, in the same turn: the in-flight set throttles it.
    const neighbour = windows.admit(source, new Date(old.getTime() + 3_000), now, IMPORTED_ROW);
    expect(new Set((await Promise.all(rows)).map((verdict) => JSON.stringify(verdict)))).toEqual(
      new Set([JSON.stringify({ status: 'admitted', beyondMemory: true })]),
    );
    expect(await neighbour).toEqual({ status: 'throttled' });
    expect(await redis.keys(`*{${source}}:seen:*`)).toEqual([]);
    expect(await windows.admit(source, at(0), now, device('a'))).toEqual({
      status: 'admitted',
      beyondMemory: false,
    });

    // Released (their rows committed), old timestamps are the stored rows' to answer for.
    await Promise.all(
      Array.from({ length: MAX_SOURCE_BATCH + 5 }, (_, index) =>
        windows.release(source, new Date(old.getTime() + index * 10_000)),
      ),
    );
    expect(await windows.admit(source, new Date(old.getTime() + 3_000), now, IMPORTED_ROW)).toEqual({
      status: 'admitted',
      beyondMemory: true,
    });
  });
});
