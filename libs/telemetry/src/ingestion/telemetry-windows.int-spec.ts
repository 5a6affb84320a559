import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisPrefix, TEST_REDIS_URL, testConfig } from '@solar/testing';
import { TelemetryWindows } from './telemetry-windows';

describe('TelemetryWindows: the arrival budget', () => {
  const prefix = createRedisPrefix();
  let redis: Redis;
  let windows: TelemetryWindows;

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: prefix.prefix });
    const config = testConfig({ SOURCE_MESSAGE_BUDGET: '2', SOURCE_MESSAGE_BUDGET_WINDOW_SECONDS: '1' });
    windows = new TelemetryWindows(redis, config);
  });

  afterAll(async () => {
    redis.disconnect();
    await prefix.cleanup();
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
