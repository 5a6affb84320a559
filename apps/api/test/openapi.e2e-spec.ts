import { INestApplication } from '@nestjs/common';
import { createTestEnvironment, Http, TestEnvironment } from '@solar/testing';
import { buildOpenApiDocument } from '../src/openapi-file';
import { startApi } from './support/api-harness';

describe('OpenAPI document and HTTP defaults', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;

  beforeAll(async () => {
    env = await createTestEnvironment({ CORS_ORIGINS: 'https://app.example.org' });
    ({ app, http } = await startApi(env.config));
  });

  afterAll(async () => {
    await app.close();
    await env.teardown();
  });

  it('serves Swagger UI at /api/docs without a session', async () => {
    const response = await http.get('/api/docs').expect(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.text).toContain('swagger-ui');
  });

  it('documents every route of the api, generated from the controllers and DTOs', async () => {
    const { body } = await http.get('/api/docs-json').expect(200);
    const operations = Object.entries(body.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'DELETE /api/admin/users/{id}',
        'GET /api/admin/stats',
        'GET /api/admin/users',
        'GET /api/auth/me',
        'GET /api/health',
        'POST /api/auth/login',
        'POST /api/auth/logout',
        'POST /api/auth/register',
        'POST /api/auth/resend-code',
        'POST /api/auth/verify-email',
        'PUT /api/admin/users/{id}/roles',
        'DELETE /api/powergroups/{id}',
        'DELETE /api/sunsources/{id}',
        'DELETE /api/upload/image',
        'GET /api/powergroups',
        'GET /api/powergroups/{id}',
        'GET /api/settings/{settingType}',
        'GET /api/sunsources',
        'GET /api/sunsources/{id}',
        'GET /api/sunsources/{id}/webhook-url',
        'POST /api/powergroups',
        'POST /api/settings/{settingType}',
        'POST /api/sunsources',
        'POST /api/sunsources/{id}/regenerate-mqtt-key',
        'POST /api/sunsources/{id}/rotate-secret',
        'POST /api/upload/image',
        'PUT /api/powergroups/{id}',
        'PUT /api/sunsources/{id}',
        'POST /api/webhook/sunsource/{sunSourceId}',
        'POST /api/internal/mqtt/auth',
        'POST /api/internal/mqtt/acl',
        'GET /api/sunsourcemetrics/faults',
        'POST /api/sunsourcemetrics/batch/latest',
        'GET /api/sunsourcemetrics/{sunSourceId}/latest',
        'GET /api/sunsourcemetrics/{sunSourceId}/history',
        'GET /api/sunsourcemetrics/{sunSourceId}/aggregated',
        'GET /api/sunsourcemetrics/{sunSourceId}/daily-summary',
        'GET /api/sunsourcedata/report/{sunSourceId}',
        'POST /api/sunsourcedata/downsample/{sunSourceId}',
        'DELETE /api/sunsourcedata/cleanup/{sunSourceId}',
        'GET /api/sunsourcedata/stats',
        'GET /api/sunsourcedata/count/{sunSourceId}',
        'GET /api/sunsourcedata/size/{sunSourceId}',
        'GET /api/sunsourcedata/raw/{sunSourceId}',
        'POST /api/sunsourcedata/{sunSourceId}/import',
        'GET /api/sunsourcedata/{sunSourceId}/import/{jobId}',
        'DELETE /api/roi/prices/{priceId}',
        'GET /api/roi/{sunSourceId}/calculate',
        'GET /api/roi/{sunSourceId}/prices',
        'GET /api/sharing/public/{sunSourceId}',
        'GET /api/sharing/public/{sunSourceId}/metrics',
        'GET /api/sharing/public/{sunSourceId}/metrics/history',
        'GET /api/sharing/public/{sunSourceId}/roi',
        'GET /api/sharing/public/{sunSourceId}/weather',
        'GET /api/sharing/{sunSourceId}',
        'GET /api/sunsourcedata/debug/process/status/{sunSourceId}',
        'GET /api/weather/{sunSourceId}',
        'POST /api/roi/{sunSourceId}/prices',
        'POST /api/sunsourcedata/debug/generate/{sunSourceId}',
        'POST /api/sunsourcedata/debug/process/start/{sunSourceId}',
        'POST /api/sunsourcedata/debug/process/stop/{sunSourceId}',
        'POST /api/weather/{sunSourceId}/refresh',
        'PUT /api/roi/prices/{priceId}',
        'PUT /api/sharing/{sunSourceId}',
        'GET /api/export/{sunSourceId}/csv',
        'GET /api/export/{sunSourceId}/excel',
        'POST /api/predictions/train',
        'POST /api/predictions/predict',
        'GET /api/predictions/status/{jobId}',
        'GET /api/predictions/latest/{sunSourceId}',
        'GET /api/predictions/model-info/{sunSourceId}',
        'GET /api/sharing/public/{sunSourceId}/forecast',
        'GET /api/predictions/{sunSourceId}/accuracy',
        'GET /api/sharing/public/{sunSourceId}/forecast/accuracy',
        'GET /share/{sunSourceId}',
        'GET /share/{sunSourceId}/badge.svg',
      ].sort(),
    );
    for (const path of [
      '/api/predictions/{sunSourceId}/accuracy',
      '/api/sharing/public/{sunSourceId}/forecast/accuracy',
    ]) {
      expect(body.paths[path].get.description).toContain(
        '- daytime hour: the mean solar elevation over the hour (6 evenly spaced instants) is above 0°',
      );
    }
    expect(body.components.schemas.ForecastAccuracyDto.properties.normalizedBy.enum).toEqual([
      'capacity',
      'watts',
    ]);
    expect(body.components.schemas.RegisterDto.required).toEqual(['email', 'password']);
    expect(body.components.schemas.AuthResponseDto.properties).toEqual(
      expect.objectContaining({
        success: expect.any(Object),
        message: expect.any(Object),
        user: expect.any(Object),
      }),
    );
    expect(body.components.securitySchemes).toEqual({
      cookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'solar.sid' }),
      internalKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Internal-API-Key' }),
      webhookSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Webhook-Secret' }),
    });
    expect(body.servers).toEqual([{ url: env.config.publicBaseUrl, description: expect.any(String) }]);
  });

  it('is the document `npm run openapi` writes without a database or Redis', async () => {
    const { body } = await http.get('/api/docs-json').expect(200);
    expect(body).toEqual(await buildOpenApiDocument(env.config));
  });

  it('sends security headers and a request id', async () => {
    const response = await http.get('/api/health').set('X-Request-Id', 'trace-42').expect(200);
    expect(response.headers['x-request-id']).toBe('trace-42');
    expect(response.headers['x-powered-by']).toBeUndefined();
    // helmet's defaults, without upgrade-insecure-requests (COOKIE_SECURE=false: plain HTTP).
    expect(response.headers).toEqual(
      expect.objectContaining({
        'content-security-policy':
          "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';" +
          "frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';" +
          "script-src-attr 'none';style-src 'self' https: 'unsafe-inline'",
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'origin-agent-cluster': '?1',
        'referrer-policy': 'no-referrer',
        'strict-transport-security': 'max-age=31536000; includeSubDomains',
        'x-content-type-options': 'nosniff',
        'x-dns-prefetch-control': 'off',
        'x-download-options': 'noopen',
        'x-frame-options': 'SAMEORIGIN',
        'x-permitted-cross-domain-policies': 'none',
        'x-xss-protection': '0',
      }),
    );
    const generated = await http.get('/api/health').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('allows the configured origins with credentials, and only those', async () => {
    const allowed = await http
      .options('/api/auth/login')
      .set('Origin', 'https://app.example.org')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-anything');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.org');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(allowed.headers['access-control-allow-headers']).toBe('content-type,x-anything');
    const denied = await http
      .options('/api/auth/login')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers an unknown route with 404 and the error body', async () => {
    const response = await http.get('/api/nothing-here').expect(404);
    expect(response.body).toEqual({ message: 'Cannot GET /api/nothing-here' });
  });
});
