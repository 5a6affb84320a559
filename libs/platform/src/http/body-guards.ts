import { Logger } from '@nestjs/common';
import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from './api-exception.filter';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** API bodies nest a few levels at most; deeper is an attack on recursive code downstream. */
export const MAX_BODY_DEPTH = 32;

/**
 * Why parsed input is refused: a prototype-polluting key, nesting beyond MAX_BODY_DEPTH, or text
 * PostgreSQL cannot store (NUL) or JavaScript cannot encode (unpaired surrogates).
 */
export function findForbiddenContent(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'NUL characters are not allowed';
    return value.isWellFormed() ? undefined : 'Unpaired surrogate characters are not allowed';
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_BODY_DEPTH) return 'Body nested too deeply';
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return `Property name "${key}" is not allowed`;
    const problem =
      findForbiddenContent(key, depth + 1) ??
      findForbiddenContent((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * JSON parsing for the API: a size limit, malformed JSON as a 400 in our error body, bodies of
 * another type refused with 415, and bodies or query strings with prototype-polluting keys, deep
 * nesting or unstorable text refused with 400.
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
    const problem = findForbiddenContent(request.body) ?? findForbiddenContent(request.query);
    if (!problem) return next();
    response.status(400).json({ message: problem });
  };
  const parserErrors: ErrorRequestHandler = (error, request, response, _next) =>
    sendError(error, request, response, logger);
  return [requireJson, parseJson, rejectForbiddenContent, parserErrors];
}
