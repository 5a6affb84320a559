import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainError, DomainErrorKind } from '@solar/domain';
import { ValidationFailedException } from './validation';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  /** Response headers the error calls for (`Retry-After`). */
  headers?: Record<string, string>;
}

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
 * Maps anything thrown to SPEC.md §7's bodies: `{ message }`, `{ errors }` for validation,
 * and an AuthResponse with `success: false` for failed authentication operations.
 * Returns `undefined` for an unexpected error (a 500).
 */
export function toErrorResponse(exception: unknown): ErrorResponse | undefined {
  if (exception instanceof ValidationFailedException) {
    return { status: HttpStatus.BAD_REQUEST, body: { errors: exception.errors } };
  }
  if (exception instanceof DomainError) {
    const status = STATUS_BY_KIND[exception.kind];
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
  return undefined;
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * What an error answers: its SPEC.md §7 response, or, for an unexpected error, a 500 that
 * reveals nothing but the request's id (the caller logs the error itself).
 */
export function errorReply(exception: unknown, requestId: unknown): ErrorResponse & { unexpected: boolean } {
  const mapped = toErrorResponse(exception);
  if (mapped) return { ...mapped, unexpected: false };
  return { status: 500, body: { message: 'Internal server error', requestId }, unexpected: true };
}
