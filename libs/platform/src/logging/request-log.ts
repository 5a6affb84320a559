import type { RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { observeHttpRequest } from '../metrics/request-metrics';
import { logLevelForStatus, requestIdOf } from './logger.module';

/**
 * The line pino-http wrote for a finished request, at the level it chose: `info` when it went
 * well, `warn` for the caller's mistakes, `error` for ours (with the error, or one naming the
 * status). Nothing is built when that level is off.
 */
export function logRequestCompleted(
  logger: Logger | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  responseTime: number,
  error?: unknown,
  routine = false,
): void {
  const { statusCode } = response;
  const level = logLevelForStatus(statusCode, error, routine);
  if (!logger?.isLevelEnabled(level)) return;
  const failure =
    error ?? (statusCode >= 500 ? new Error(`failed with status code ${statusCode}`) : undefined);
  // pino-http's serializers (LoggingModule) take these down to id, method, url and status.
  const line = {
    req: request,
    res: response,
    responseTime: Math.round(responseTime),
    ...(failure ? { err: failure } : {}),
  };
  logger[level](line, failure ? 'request errored' : 'request completed');
}

/**
 * Each request gets its id (the caller's sane `X-Request-Id`, or a new UUID), echoed in the
 * answer, and one log line when it is answered or abandoned. What pino-http did, without its two
 * child loggers per request and nestjs-pino's request context (an AsyncLocalStorage, which
 * hooks every promise): measured at 0.2–0.4 ms of CPU per request, a sixth of a small read's.
 * Logs written while serving a request name it through `requestId` where it matters (errors).
 * The same moment counts the request in `solar_http_request_duration_seconds`.
 *
 * `quiet` requests are neither logged nor counted (probes, scrapes). `routine` requests (devices'
 * messages, thousands a second) are counted, and logged at debug when they went well: a fleet
 * would otherwise write a line per message, where MQTT writes none, and the metrics already say
 * how many there were and how they went.
 */
export function requestLogging(
  logger: () => Logger | undefined,
  options: {
    quiet?: (request: IncomingMessage) => boolean;
    routine?: (request: IncomingMessage) => boolean;
  } = {},
): RequestHandler {
  return (request, response, next) => {
    const id = requestIdOf(request);
    request.id = id;
    response.setHeader('X-Request-Id', id);
    if (options.quiet?.(request)) return next();

    const startedAt = performance.now();
    const completed = () => {
      response.off('finish', completed);
      response.off('close', completed);
      const elapsed = performance.now() - startedAt;
      observeHttpRequest(request, response, elapsed);
      logRequestCompleted(logger(), request, response, elapsed, undefined, options.routine?.(request));
    };
    response.on('finish', completed);
    response.on('close', completed);
    next();
  };
}
