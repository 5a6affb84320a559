import { Logger } from '@nestjs/common';
import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from './api-exception.filter';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a parsed body is refused: a prototype-polluting key, or a NUL character PostgreSQL cannot store. */
function findForbiddenContent(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string')
    return value.includes('\u0000') ? 'NUL characters are not allowed' : undefined;
  if (depth > 64 || value === null || typeof value !== 'object') return undefined;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return `Property name "${key}" is not allowed`;
    if (key.includes('\u0000')) return 'NUL characters are not allowed';
    const nested = findForbiddenContent((value as Record<string, unknown>)[key], depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * JSON parsing for the API: a size limit, malformed JSON as a 400 in our error body, bodies of
 * another type refused with 415, and prototype-polluting keys (`__proto__`...) or NUL characters
 * refused with 400.
 */
export function jsonBodyHandlers(
  limit: string,
  skipPaths: RegExp[] = [],
): Array<RequestHandler | ErrorRequestHandler> {
  const logger = new Logger('BodyParser');
  const parse = express.json({ limit, type: ['application/json', 'application/*+json'] });
  const skip = (url: string) => skipPaths.some((pattern) => pattern.test(url));

  const requireJson: RequestHandler = (request, response, next) => {
    const hasBody =
      Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'];
    if (!hasBody || skip(request.originalUrl) || request.is(['application/json', 'application/*+json']))
      return next();
    response.status(415).json({ message: 'Content-Type must be application/json' });
  };
  const parseJson: RequestHandler = (request, response, next) =>
    skip(request.originalUrl) ? next() : parse(request, response, next);
  const rejectForbiddenContent: RequestHandler = (request, response, next) => {
    const problem = findForbiddenContent(request.body);
    if (!problem) return next();
    response.status(400).json({ message: problem });
  };
  const parserErrors: ErrorRequestHandler = (error, request, response, _next) =>
    sendError(error, request, response, logger);
  return [requireJson, parseJson, rejectForbiddenContent, parserErrors];
}
