import { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { exportedFamilyNames } from '@solar/monitoring';
import { PREDICTION_QUEUE, QueuedPredictionJob } from '@solar/predictions';
import { bullQueueConnection } from '@solar/redis';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  metricGrowth,
  scrapeMetrics,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { createSchedulerApp } from '../src/create-scheduler-app';
import { JobRunner } from '../src/jobs/job-runner';

const NOW = new Date('2026-06-10T06:00:00Z');

describe("the scheduler's Prometheus metrics", () => {
  const clock = new FakeClock(NOW);
  let fake: FakeOpenMeteo;
  let env: TestEnvironment;
  let db: Client;
  let scheduler: INestApplication;
  let queue: Queue<QueuedPredictionJob>;
  let base: string;

  beforeAll(async () => {
    fake = await new FakeOpenMeteo({ firstDate: '2026-06-10', utcOffsetSeconds: 7200 }).start();
    env = await createTestEnvironment({ WEATHER_API_URL: fake.url });
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    scheduler = await createSchedulerApp(env.config, { clock });
    for (const cron of scheduler.get(SchedulerRegistry).getCronJobs().values()) await cron.stop();
    await scheduler.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(scheduler.getHttpServer().address() as AddressInfo).port}`;
    queue = new Queue(PREDICTION_QUEUE, bullQueueConnection(env.config));
  });

  afterAll(async () => {
    await queue?.close();
    await scheduler?.close();
    await db?.end();
    await env?.teardown();
    await fake?.stop();
  });

  const scrape = () => scrapeMetrics(`${base}/metrics`);

  it('serves every family at GET /metrics on its own port, and the depth of the prediction queue', async () => {
    const metrics = await scrape();
    expect(metrics.status).toBe(200);
    expect([...metrics.families].sort()).toEqual(exportedFamilyNames().sort());
    for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed']) {
      expect(metrics.value('solar_queue_jobs', { queue: 'predictions', state })).toBe(0);
    }
    await queue.add(
      'predict',
      { jobId: 'later', type: 'predict', sunSourceId: randomUUID() },
      { delay: 3_600_000 },
    );
    expect((await scrape()).value('solar_queue_jobs', { queue: 'predictions', state: 'delayed' })).toBe(1);
    await queue.remove('later').catch(() => undefined);
    await queue.drain(true);
  });

  it('times a queued job and counts it failed, by type', async () => {
    const before = await scrape();
    const job: QueuedPredictionJob = {
      jobId: `train_${Date.now()}`,
      type: 'train',
      sunSourceId: randomUUID(),
    };
    await queue.add(job.type, job, { jobId: job.jobId, removeOnComplete: true, removeOnFail: true });
    const labels = { queue: 'predictions', type: 'train' };
    await waitFor(
      async () =>
        metricGrowth(before, await scrape(), 'solar_queue_job_duration_seconds_count', labels) === 1,
      'the job timed',
    );
    const after = await scrape();
    // No such source: the job runs and fails.
    expect(
      metricGrowth(before, after, 'solar_queue_job_duration_seconds_count', { ...labels, status: 'failed' }),
    ).toBe(1);
    expect(
      metricGrowth(before, after, 'solar_queue_job_failures_total', { ...labels, reason: 'failed' }),
    ).toBe(1);
  });

  it('counts weather fetches by outcome and the cron tasks by status', async () => {
    const userId = randomUUID();
    await db.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      userId,
      `${userId}@example.com`,
    ]);
    await db.query(`INSERT INTO user_settings (user_id, setting_type, value) VALUES ($1, 2, '1')`, [userId]);
    for (const latitude of [10.5, 11.5]) {
      await db.query(
        `INSERT INTO sun_sources (id, user_id, name, connection_type, webhook_secret_encrypted, latitude, longitude, is_active)
         VALUES ($1, $2, 'S', 'Webhook', 'v1.x', $3, 20.5, true)`,
        [randomUUID(), userId, latitude],
      );
    }
    fake.answerWith('http-500', { latitude: 11.5 });
    const before = await scrape();
    const report = await scheduler.get(JobRunner).run('weather');
    expect(report).toMatchObject({ status: 'completed', counts: { refreshed: 1, failed: 1 } });
    const after = await scrape();
    expect(metricGrowth(before, after, 'solar_weather_fetches_total', { outcome: 'ok' })).toBe(1);
    expect(metricGrowth(before, after, 'solar_weather_fetches_total', { outcome: 'http_error' })).toBe(1);
    expect(metricGrowth(before, after, 'solar_weather_fetch_duration_seconds_count')).toBe(2);
    expect(
      metricGrowth(before, after, 'solar_scheduled_task_runs_total', {
        task: 'weather',
        status: 'completed',
      }),
    ).toBe(1);
    expect(
      metricGrowth(before, after, 'solar_scheduled_task_duration_seconds_count', { task: 'weather' }),
    ).toBe(1);
  });
});
