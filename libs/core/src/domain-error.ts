/**
 * Errors the domain throws. Each kind maps to one HTTP status in the api's exception filter,
 * so services never speak HTTP.
 */
export type DomainErrorKind =
  | 'bad_request'
  | 'auth_failed'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'too_many_requests'
  | 'unavailable';

export class DomainError extends Error {
  /** When the client may try again, for the `Retry-After` header; absent: no header. */
  retryAfterSeconds?: number;

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends DomainError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

/** A failed authentication operation, reported as an AuthResponse with `success: false`. */
export class AuthFailedError extends DomainError {
  constructor(message: string) {
    super('auth_failed', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Forbidden') {
    super('forbidden', message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found') {
    super('not_found', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/**
 * A dependency or a capacity is unavailable for now (503): the caller may try again, in
 * `retryAfterSeconds` (an integer, at least 1) when the answer knows when.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(message: string, options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super('unavailable', message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** A per-user or per-client limit is reached; the answer says when to try again. */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super('too_many_requests', message);
  }
}
