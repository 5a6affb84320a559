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

  it('answers a rate limit with 429, its message and how long to wait in Retry-After', () => {
    expect(toErrorResponse(new TooManyRequestsError(17))).toEqual({
      status: 429,
      body: { message: 'Too many requests. Try again later.' },
      headers: { 'Retry-After': '17' },
    });
  });

  it('leaves unexpected errors to the 500 path', () => {
    expect(toErrorResponse(new TypeError('boom'))).toBeUndefined();
    expect(toErrorResponse('a string')).toBeUndefined();
    expect(toErrorResponse(undefined)).toBeUndefined();
  });
});
