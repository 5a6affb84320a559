import {
  BadRequestException,
  ForbiddenException,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import {
  AuthFailedError,
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '@solar/domain';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error-response';
import { ValidationFailedException } from './validation';

describe('toErrorResponse (SPEC.md §7)', () => {
  it.each([
    [new BadRequestError('bad'), 400, { message: 'bad' }],
    [new ForbiddenError('no'), 403, { message: 'no' }],
    [new NotFoundError('Sun source not found'), 404, { message: 'Sun source not found' }],
    [new ServiceUnavailableError('down'), 503, { message: 'down' }],
    [
      new AuthFailedError('Invalid email or password'),
      400,
      { success: false, message: 'Invalid email or password', user: null },
    ],
    [
      new ValidationFailedException({ email: ['email must be an email'] }),
      400,
      { errors: { email: ['email must be an email'] } },
    ],
    [new UnauthorizedException('Authentication required'), 401, { message: 'Authentication required' }],
    [new ForbiddenException('Insufficient role'), 403, { message: 'Insufficient role' }],
    [new NotFoundException(), 404, { message: 'Not Found' }],
    [new BadRequestException(['a', 'b']), 400, { message: 'a; b' }],
    [
      Object.assign(new Error('x'), { type: 'entity.parse.failed', status: 400 }),
      400,
      { message: 'Malformed JSON body' },
    ],
    [
      Object.assign(new Error('x'), { type: 'entity.too.large', status: 413 }),
      413,
      { message: 'Request body too large' },
    ],
  ])('maps %p to %i', (error, status, body) => {
    expect(toErrorResponse(error)).toEqual({ status, body });
  });

  it('answers a limit with 429 and Retry-After', () => {
    expect(toErrorResponse(new TooManyRequestsError('Slow down.', 60))).toEqual({
      status: 429,
      body: { message: 'Slow down.' },
      headers: { 'Retry-After': '60' },
    });
    expect(toErrorResponse(new ServiceUnavailableError('Busy.', { retryAfterSeconds: 5 }))).toEqual({
      status: 503,
      body: { message: 'Busy.' },
      headers: { 'Retry-After': '5' },
    });
  });

  it('answers a statement cancelled by statement_timeout with 503, raw or through TypeORM', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    const expected = {
      status: 503,
      body: { message: 'The request took too long. Try again later.' },
      headers: { 'Retry-After': '30' },
    };

    expect(toErrorResponse(cancelled)).toEqual(expected);
    expect(toErrorResponse(new QueryFailedError('SELECT pg_sleep(60)', [], cancelled))).toEqual(expected);
    expect(toErrorResponse(Object.assign(new Error('unique'), { code: '23505' }))).toBeUndefined();
  });

  it('leaves unexpected errors to the 500 path', () => {
    expect(toErrorResponse(new TypeError('boom'))).toBeUndefined();
    expect(toErrorResponse('a string')).toBeUndefined();
    expect(toErrorResponse(undefined)).toBeUndefined();
  });
});
