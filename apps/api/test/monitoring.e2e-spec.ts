import { Client } from 'pg';
import { exportedFamilyNames } from '@solar/monitoring';
import {
  ApiWithUser,
  createWebhookSource,
  Http,
  metricGrowth,
  scrapeMetrics,
  startApiWithUser,
} from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { ApiMetricsListener } from '../src/monitoring/api-metrics-listener';
import { postTelemetry } from './support/api-harness';

const WEBHOOK_ROUTE = '/api/webhook/sunsource/:sunSourceId';
const webhook = (outcome: string) => ({ channel: 'webhook', outcome });
const requests = (method: string, route: string, status: string) => ({ method, route, status });
const STAGE_COUNT = 'solar_telemetry_stage_duration_seconds_count';

describe("the api's Prometheus metrics", () => {
  let harness: ApiWithUser;
  let http: Http;
  let db: Client;
  let cookie: string;
  let metricsUrl: string;

  beforeAll(async () => {
    harness = await startApiWithUser(createApiApp);
    ({ http, db, cookie } = harness);
    metricsUrl = `http://127.0.0.1:${harness.app.get(ApiMetricsListener).port}/metrics`;
  });

  afterAll(async () => {
    await harness?.close();
  });

  const scrape = () => scrapeMetrics(metricsUrl);

  it('serves every family on its own listener, in the text format Prometheus reads', async () => {
    const metrics = await scrape();
    expect(metrics.status).toBe(200);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    // Exactly the families the registry defines (process and Node.js ones included), none missing.
    expect([...metrics.families].sort()).toEqual(exportedFamilyNames().sort());
    for (const name of [
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'solar_telemetry_messages_total',
    ]) {
      expect(metrics.families).toContain(name);
    }
  });

  it('answers nothing but GET /metrics there: 404 with the error body', async () => {
    const base = metricsUrl.replace(/\/metrics$/, '');
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api/health'],
      ['POST', '/metrics'],
      ['GET', '/metrics/x'],
    ]) {
      const response = await fetch(`${base}${path}`, { method });
      expect({ method, path, status: response.status, body: await response.json() }).toEqual({
        method,
        path,
        status: 404,
        body: { message: 'Not found' },
      });
    }
  });

  it('is not on the public port, with or without the internal key', async () => {
    const key = harness.env.config.internalApiKey;
    for (const path of ['/metrics', '/api/metrics', '/api/internal/metrics']) {
      const response = await http.get(path).set('X-Internal-API-Key', key).expect(404);
      expect(response.body).toEqual({ message: `Cannot GET ${path}` });
      expect(response.text).not.toContain('solar_');
    }
  });

  it('counts a stored webhook message: outcome, lag, intake steps, batch, commit and the HTTP request under its route template', async () => {
    const source = await createWebhookSource(http, cookie);
    const before = await scrape();
    await postTelemetry(http, source, { soc: 50 }).expect(200);
    await postTelemetry(
      http,
      source,
      { soc: 51, timestamp: new Date(Date.now() - 60_000).toISOString() },
      'controller',
    ).expect(200);
    const after = await scrape();

    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', webhook('stored'))).toBe(2);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', { channel: 'mqtt' })).toBe(0);
    expect(metricGrowth(before, after, 'solar_telemetry_ingestion_lag_seconds_count')).toBe(2);
    for (const stage of ['source', 'windows', 'write'])
      expect({ stage, count: metricGrowth(before, after, STAGE_COUNT, { stage }) }).toEqual({
        stage,
        count: 2,
      });
    expect(metricGrowth(before, after, 'solar_telemetry_batch_points_sum')).toBe(2);
    expect(
      metricGrowth(before, after, 'solar_telemetry_commit_duration_seconds_count'),
    ).toBeGreaterThanOrEqual(1);
    // The device's route ahead of Express and the controller behind it: one series.
    const route = requests('POST', WEBHOOK_ROUTE, '200');
    expect(metricGrowth(before, after, 'solar_http_request_duration_seconds_count', route)).toBe(2);
    expect(after.value('solar_telemetry_messages_in_flight', { channel: 'webhook' })).toBe(0);
    const rows = await db.query('SELECT 1 FROM telemetry WHERE sun_source_id = $1', [source.id]);
    expect(rows.rowCount).toBe(2);
  });

  it('counts refused, throttled and duplicate messages, with the reason of a refusal', async () => {
    const source = await createWebhookSource(http, cookie);
    const before = await scrape();
    const at = new Date(Date.now() - 3_600_000).toISOString();
    await postTelemetry(http, source, { soc: 60, timestamp: at }).expect(200);
    await postTelemetry(http, source, { soc: 60, timestamp: at }).expect(409);
    const soon = new Date(Date.parse(at) + 1000).toISOString();
    await postTelemetry(http, source, { soc: 62, timestamp: soon }).expect(200, {
      message: 'Data accepted',
      stored: false,
      reason: 'throttled',
    });
    await postTelemetry(http, { ...source, secret: 'wrong' }, { soc: 61 }).expect(400);
    await postTelemetry(http, source, { nothing: 'useful' }).expect(400);
    await http.post(`/api/webhook/sunsource/${crypto.randomUUID()}`).send({ key: 'x', soc: 1 }).expect(404);
    const after = await scrape();

    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', webhook('stored'))).toBe(1);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', webhook('duplicate'))).toBe(1);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', webhook('throttled'))).toBe(1);
    expect(metricGrowth(before, after, 'solar_telemetry_messages_total', webhook('refused'))).toBe(3);
    const reason = (name: string) => ({ channel: 'webhook', reason: name });
    expect(
      metricGrowth(before, after, 'solar_telemetry_refused_messages_total', reason('unauthenticated')),
    ).toBe(1);
    expect(
      metricGrowth(before, after, 'solar_telemetry_refused_messages_total', reason('no_valid_fields')),
    ).toBe(1);
    expect(
      metricGrowth(before, after, 'solar_telemetry_refused_messages_total', reason('unknown_source')),
    ).toBe(1);
    expect(
      metricGrowth(
        before,
        after,
        'solar_http_request_duration_seconds_count',
        requests('POST', WEBHOOK_ROUTE, '400'),
      ),
    ).toBe(2);
    expect(
      metricGrowth(
        before,
        after,
        'solar_http_request_duration_seconds_count',
        requests('POST', WEBHOOK_ROUTE, '409'),
      ),
    ).toBe(1);
    // Answered from memory after the first lookup of the source.
    expect(
      metricGrowth(before, after, 'solar_cache_lookups_total', { cache: 'SourceAccessCache', result: 'hit' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      metricGrowth(before, after, 'solar_cache_lookups_total', {
        cache: 'SourceAccessCache',
        result: 'miss',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('labels requests by route template, never by the id in the path; unmatched paths share one series', async () => {
    const source = await createWebhookSource(http, cookie);
    const before = await scrape();
    await http.get(`/api/sunsources/${source.id}`).set('Cookie', cookie).expect(200);
    await http.get(`/api/sunsources/${crypto.randomUUID()}`).set('Cookie', cookie).expect(404);
    await http.get(`/api/nothing-here/${source.id}`).expect(404);
    const after = await scrape();
    expect(
      metricGrowth(
        before,
        after,
        'solar_http_request_duration_seconds_count',
        requests('GET', '/api/sunsources/:id', '200'),
      ),
    ).toBe(1);
    expect(
      metricGrowth(
        before,
        after,
        'solar_http_request_duration_seconds_count',
        requests('GET', '/api/sunsources/:id', '404'),
      ),
    ).toBe(1);
    expect(
      metricGrowth(
        before,
        after,
        'solar_http_request_duration_seconds_count',
        requests('GET', 'unmatched', '404'),
      ),
    ).toBe(1);
    const text = await (await fetch(metricsUrl)).text();
    expect(text).not.toContain(source.id);
  });

  it("counts the broker's hook calls by verdict", async () => {
    const key = harness.env.config.internalApiKey;
    const before = await scrape();
    await http
      .post('/api/internal/mqtt/auth')
      .set('X-Internal-API-Key', key)
      .send({ clientId: 'src-nobody', username: 'src-nobody', password: 'nope' })
      .expect(200, { result: 'deny' });
    await http
      .post('/api/internal/mqtt/acl')
      .set('X-Internal-API-Key', key)
      .send({ clientId: 'src-nobody', username: 'src-nobody', topic: 'solar/x', action: 'publish' })
      .expect(200, { result: 'deny' });
    const after = await scrape();
    expect(
      metricGrowth(before, after, 'solar_broker_hook_requests_total', { hook: 'auth', verdict: 'deny' }),
    ).toBe(1);
    expect(
      metricGrowth(before, after, 'solar_broker_hook_requests_total', { hook: 'acl', verdict: 'deny' }),
    ).toBe(1);
  });

  it('counts the rows an export reads, and shows no export streaming once it is done', async () => {
    const source = await createWebhookSource(http, cookie);
    const start = new Date(Date.now() - 10 * 60_000);
    for (let i = 0; i < 3; i++) {
      const timestamp = new Date(start.getTime() + i * 60_000).toISOString();
      await postTelemetry(http, source, { soc: 40 + i, timestamp }).expect(200);
    }
    const before = await scrape();
    await http
      .get(`/api/export/${source.id}/csv`)
      .query({ startDate: start.toISOString(), endDate: new Date().toISOString() })
      .set('Cookie', cookie)
      .expect(200);
    const after = await scrape();
    expect(metricGrowth(before, after, 'solar_export_rows_total')).toBe(3);
    expect(after.value('solar_export_streams_active', { format: 'csv' })).toBe(0);
    expect(after.has('solar_export_streams_active', { format: 'xlsx' })).toBe(true);
  });

  it('reports the database pool: its size, connections in use and idle, and nothing waiting at rest', async () => {
    const metrics = await scrape();
    expect(metrics.value('solar_db_pool_max_connections', { pool: 'main' })).toBe(10);
    const open =
      metrics.value('solar_db_pool_connections', { pool: 'main', state: 'in_use' }) +
      metrics.value('solar_db_pool_connections', { pool: 'main', state: 'idle' });
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThanOrEqual(10);
    expect(metrics.value('solar_db_pool_waiting_requests', { pool: 'main' })).toBe(0);
  });
});
