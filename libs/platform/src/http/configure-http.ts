import { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppConfig } from '@solar/config';
import { METRICS_PATH } from '@solar/monitoring';
import { requestLogging } from '../logging/request-log';
import { ApiExceptionFilter } from './api-exception.filter';
import { jsonBodyHandlers } from './body-guards';
import { createValidationPipe } from './validation';

export interface HttpOptions {
  jsonLimit?: string;
  /** Paths that parse their own bodies (uploads, webhooks with their own limit). */
  rawBodyPaths?: RegExp[];
  /** The app answers Prometheus's scrapes on this server (`MetricsEndpointModule`). */
  servesMetrics?: boolean;
  /** Paths of routine traffic (devices' messages): their successful answers are logged at debug. */
  routinePaths?: RegExp[];
  /**
   * `false` for an app whose routes take no input (health and metrics only): no validation
   * pipe, and so no class-validator to load at start (docs/operations.md, Start-up).
   */
  validatesInput?: boolean;
}

/**
 * What every HTTP app of the project shares: pino logs with a line per request, helmet, CORS
 * from `CORS_ORIGINS`, trusted proxies, bounded JSON bodies, the validation pipe (unless the app
 * takes no input) and the error filter.
 * The app must be created with `{ bodyParser: false, bufferLogs: true }`.
 */
export function configureHttpApp(app: INestApplication, config: AppConfig, options: HttpOptions = {}): void {
  const express = app as NestExpressApplication;
  express.useLogger(app.get(Logger));
  // Probes and scrapes come every few seconds: neither logged nor counted. Elsewhere (the api's
  // public port) `/metrics` is an unknown path like any other.
  const quietPaths = ['/api/health', ...(options.servesMetrics ? [METRICS_PATH] : [])];
  const quiet = (request: { url?: string }) => quietPaths.includes(request.url ?? '');
  const routinePaths = options.routinePaths ?? [];
  const routine = (request: { url?: string }) => routinePaths.some((path) => path.test(request.url ?? ''));
  express.use(requestLogging(() => PinoLogger.root, { quiet, routine }));
  express.set('trust proxy', config.trustProxy);
  express.disable('x-powered-by');
  // Express would hash every JSON body for an ETag no client of this API revalidates with.
  express.set('etag', false);
  express.use(securityHeadersOnEveryResponse(config));
  express.enableCors({
    origin: config.corsOrigins,
    credentials: true,
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'],
  });
  for (const handler of jsonBodyHandlers(options.jsonLimit ?? '256kb', options.rawBodyPaths))
    express.use(handler);
  if (options.validatesInput !== false) express.useGlobalPipes(createValidationPipe());
  express.useGlobalFilters(new ApiExceptionFilter());
}

/**
 * helmet's headers on every response, set from `securityHeaderList`: they depend on the
 * configuration only, so each request is spared helmet's chain of eleven middlewares, which
 * compute the same values every time (~20 µs of a request's ~1 ms).
 */
function securityHeadersOnEveryResponse(config: AppConfig): RequestHandler {
  const headers = securityHeaderList(config);
  return (_request, response, next) => {
    for (let i = 0; i < headers.length; i += 2) response.setHeader(headers[i], headers[i + 1]);
    next();
  };
}

/** helmet, configured as the project's responses need it. */
function securityHeaders(config: AppConfig): RequestHandler {
  // Plain-HTTP local use (no TLS proxy) must not have the browser upgrade the docs' assets to https.
  return helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: config.cookieSecure ? [] : null } },
  });
}

/**
 * The headers `securityHeaders` sets, as a flat `[name, value, …]` list for `writeHead`. They
 * depend on the configuration only, so a route answering outside the middleware chain sends
 * the same ones without running helmet on every request.
 */
export function securityHeaderList(config: AppConfig): string[] {
  const headers: string[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push(name, String(value)),
    removeHeader: () => undefined,
  };
  securityHeaders(config)({} as Request, recorder as unknown as Response, () => undefined);
  return headers;
}
