import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpRequestDuration } from '@solar/monitoring';

type Observer = ReturnType<typeof httpRequestDuration.labels>;

/** What no route answered (a 404, a static file, the API docs): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Each method, route and status's series, bound once: a request then costs lookups, no label object. */
const observers = new Map<string, Map<string, Map<number, Observer>>>();

function observerOf(method: string, route: string, status: number): Observer {
  let byRoute = observers.get(method);
  if (!byRoute) observers.set(method, (byRoute = new Map()));
  let byStatus = byRoute.get(route);
  if (!byStatus) byRoute.set(route, (byStatus = new Map()));
  let observer = byStatus.get(status);
  if (!observer) {
    observer = httpRequestDuration.labels(method, route, String(status));
    byStatus.set(status, observer);
  }
  return observer;
}

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
  observerOf(method, template, response.statusCode).observe(milliseconds / 1000);
}

function routeTemplateOf(request: { route?: { path?: unknown } }): string {
  const path = request.route?.path;
  return typeof path === 'string' ? path : UNMATCHED_ROUTE;
}
