import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainError, DomainErrorKind } from '@solar/core';
import { ValidationFailedException } from './validation';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  /** Headers the answer carries besides the body's (`Retry-After` of a 429 or of an outage's 503). */
  headers?: Record<string, string>;
}

/** What a request gets while Redis or PostgreSQL cannot be reached. */
export const BACKEND_UNAVAILABLE_MESSAGE = 'Service temporarily unavailable. Try again later.';
/** Seconds a client is asked to wait before retrying after an outage's 503. */
export const BACKEND_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
const RETRY_AFTER = { 'Retry-After': String(BACKEND_UNAVAILABLE_RETRY_AFTER_SECONDS) };

const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  bad_request: HttpStatus.BAD_REQUEST,
  auth_failed: HttpStatus.BAD_REQUEST,
  forbidden: HttpStatus.FORBIDDEN,
  not_found: HttpStatus.NOT_FOUND,
  conflict: HttpStatus.CONFLICT,
  payload_too_large: HttpStatus.PAYLOAD_TOO_LARGE,
  too_many_requests: HttpStatus.TOO_MANY_REQUESTS,
  unavailable: HttpStatus.SERVICE_UNAVAILABLE,
};

/** Errors raised by body-parser before any route runs (they carry `type` and `status`). */
const BODY_PARSER_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'Malformed JSON body',
  'entity.too.large': 'Request body too large',
  'encoding.unsupported': 'Unsupported content encoding',
  'charset.unsupported': 'Unsupported charset',
  'request.aborted': 'Request aborted',
  'request.size.invalid': 'Request size did not match Content-Length',
};

/** PostgreSQL's `query_canceled`: a statement ran past its `statement_timeout`. */
const QUERY_CANCELED = '57014';
export const QUERY_TIMED_OUT = 'The request took too long. Try again later.';
const QUERY_TIMED_OUT_RETRY_SECONDS = 30;

/**
 * Maps anything thrown to the API's error bodies: `{ message }`, `{ errors }` for validation,
 * and an AuthResponse with `success: false` for failed authentication operations.
 * Returns `undefined` for an unexpected error (a 500).
 */
export function toErrorResponse(exception: unknown): ErrorResponse | undefined {
  if (exception instanceof ValidationFailedException) {
    return { status: HttpStatus.BAD_REQUEST, body: { errors: exception.errors } };
  }
  if (exception instanceof DomainError) {
    const status = STATUS_BY_KIND[exception.kind];
    if (exception.kind === 'unavailable' && isBackendUnavailable(exception)) {
      return { status, body: { message: exception.message }, headers: RETRY_AFTER };
    }
    if (exception.kind === 'auth_failed') {
      return { status, body: { success: false, message: exception.message, user: null } };
    }
    const retryAfter = exception.retryAfterSeconds;
    if (retryAfter !== undefined) {
      return { status, body: { message: exception.message }, headers: { 'Retry-After': String(retryAfter) } };
    }
    return { status, body: { message: exception.message } };
  }
  // A statement cut off by the pool's statement_timeout (the raw pg error, or TypeORM's
  // QueryFailedError, which copies its fields): the database is busy, not the request wrong.
  if ((exception as { code?: unknown } | undefined)?.code === QUERY_CANCELED) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: { message: QUERY_TIMED_OUT },
      headers: { 'Retry-After': String(QUERY_TIMED_OUT_RETRY_SECONDS) },
    };
  }
  if (exception instanceof HttpException) {
    return { status: exception.getStatus(), body: { message: httpExceptionMessage(exception) } };
  }
  // body-parser and http-errors report client mistakes with a 4xx `status` (a gzip body that
  // does not inflate carries no `type`): they are the client's, never a 500.
  const clientError = exception as { type?: string; status?: number } | undefined;
  const status = clientError?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = (clientError?.type && BODY_PARSER_MESSAGES[clientError.type]) || 'Malformed request body';
    return { status, body: { message } };
  }
  // After the client's errors: an aborted request body also carries ECONNABORTED.
  if (isBackendUnavailable(exception)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: { message: BACKEND_UNAVAILABLE_MESSAGE },
      headers: RETRY_AFTER,
    };
  }
  return undefined;
}

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is not there for us: connection exceptions (class 08), and the
 * server shutting down (57P01 admin, 57P02 crash) or still starting (57P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123])$/;

/**
 * Messages of the clients' own errors for a lost or unreachable server, which carry no code:
 * ioredis ("Connection is closed.", a command refused while offline) and pg / pg-pool (a
 * connection dropped or never made in time). Read from ioredis 5 and pg 8: check on upgrade.
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^Connection terminated( unexpectedly| due to connection timeout)?$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
];

/**
 * True when the error, or one it was caused by, says that Redis or PostgreSQL cannot be
 * reached: a 503 the client may retry, never a 500. Follows `cause` (BullMQ, our domain errors),
 * TypeORM's `driverError` and an AggregateError's `errors`. Read by shape, not `instanceof`:
 * Node's own socket errors may come from another realm (a test runner's sandbox).
 */
export function isBackendUnavailable(exception: unknown, seen = new Set<unknown>()): boolean {
  let current = exception;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const error = current as { name?: unknown; message?: unknown; code?: unknown; errors?: unknown };
    // ioredis gives up on a command after `maxRetriesPerRequest` reconnections.
    if (error.name === 'MaxRetriesPerRequestError') return true;
    if (typeof error.code === 'string') {
      if (CONNECTION_ERROR_CODES.has(error.code) || UNAVAILABLE_SQLSTATE.test(error.code)) return true;
    }
    const message = error.message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))
      return true;
    if (Array.isArray(error.errors) && error.errors.some((inner) => isBackendUnavailable(inner, seen)))
      return true;
    const { driverError, cause } = current as { driverError?: unknown; cause?: unknown };
    current = driverError ?? cause;
  }
  return false;
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * What an error answers: its error response (docs/api.md, "Errors"), or, for an unexpected error, a 500 that
 * reveals nothing but the request's id (the caller logs the error itself).
 */
export function errorReply(exception: unknown, requestId: unknown): ErrorResponse & { unexpected: boolean } {
  const mapped = toErrorResponse(exception);
  if (mapped) return { ...mapped, unexpected: false };
  return { status: 500, body: { message: 'Internal server error', requestId }, unexpected: true };
}
