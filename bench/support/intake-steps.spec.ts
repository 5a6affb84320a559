import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Gauge, Histogram, Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '@solar/monitoring';
import { eventLoopIntervals, intakeSteps, scrapeApiMetrics } from './intake-steps';

describe("bench:ingest's split of a steady message's wait", () => {
  const registry = new Registry();
  const stages = new Histogram({
    name: 'solar_telemetry_stage_duration_seconds',
    help: 'as the apps export it',
    labelNames: ['stage'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_, response) => {
      void registry.metrics().then((text) => response.end(text));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('reads what each step recorded between two scrapes: mean and the bucket holding the p99', async () => {
    stages.observe({ stage: 'write' }, 5); // before the window: not counted
    const before = await scrapeApiMetrics(url);
    for (let i = 0; i < 98; i++) stages.observe({ stage: 'windows' }, 0.003);
    stages.observe({ stage: 'windows' }, 0.04);
    stages.observe({ stage: 'windows' }, 0.04);
    stages.observe({ stage: 'write' }, 0.02);
    const after = await scrapeApiMetrics(url);

    const steps = intakeSteps(before, after).map((step) => ({
      ...step,
      meanMs: Number(step.meanMs.toFixed(6)),
    }));
    expect(steps).toEqual([
      { stage: 'source', messages: 0, meanMs: 0, p99AtMostMs: null },
      { stage: 'windows', messages: 100, meanMs: 3.74, p99AtMostMs: 50 },
      { stage: 'write', messages: 1, meanMs: 20, p99AtMostMs: 25 },
    ]);
  });

  it('gives nothing without both scrapes (several api processes, or metrics that did not answer)', async () => {
    const after = await scrapeApiMetrics(url);
    expect(intakeSteps(undefined, after)).toEqual([]);
    expect(await scrapeApiMetrics(undefined)).toBeUndefined();
    expect(await scrapeApiMetrics('http://127.0.0.1:9/metrics')).toBeUndefined();
  });

  it("reads the api's event loop as prom-client exports it, in ms, and nothing without those metrics", async () => {
    const loop = new Registry();
    for (const [statistic, seconds] of [
      ['p50', 0.0101],
      ['p99', 0.04567],
      ['max', 0.25],
    ] as const) {
      new Gauge({
        name: `nodejs_eventloop_lag_${statistic}_seconds`,
        help: 'as prom-client exports it',
        registers: [loop],
      }).set(seconds);
    }
    const loopServer = createServer((_, response) => {
      void loop.metrics().then((text) => response.end(text));
    });
    await new Promise<void>((resolve) => loopServer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (loopServer.address() as AddressInfo).port;
      const scrape = await scrapeApiMetrics(`http://127.0.0.1:${port}/metrics`);
      expect(eventLoopIntervals(scrape)).toEqual({ p50Ms: 10.1, p99Ms: 45.7, maxMs: 250 });
    } finally {
      await new Promise((resolve) => loopServer.close(resolve));
    }
    expect(eventLoopIntervals(await scrapeApiMetrics(url))).toBeUndefined();
    expect(eventLoopIntervals(undefined)).toBeUndefined();
  });
});
