import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpRequestDuration } from '@solar/monitoring';

/** What no route answered (a 404, a static file, the API docs): one series, not one per path. */
const UNMATCHED_ROUTE = 'unmatched';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts an answered request in `solar_http_request_duration_seconds`. `route`: its template,
 * by default the Express route that answered it (`request.route`, set by the router).
 */
export function observeHttpRequest(
  request: IncomingMessage & { route?: { path?: unknown } },
  response: ServerResponse,
  milliseconds: number,
  route?: string,
): void {
  const template = route ?? routeTemplateOf(request);
  const method = METHODS.has(request.method ?? '') ? request.method! : 'OTHER';
  // prom-client hashes the labels on every observation, bound or not: binding them saves nothing.
  httpRequestDuration.observe(
    { method, route: template, status: String(response.statusCode) },
    milliseconds / 1000,
  );
}

function routeTemplateOf(request: { route?: { path?: unknown } }): string {
  const path = request.route?.path;
  return typeof path === 'string' ? path : UNMATCHED_ROUTE;
}
