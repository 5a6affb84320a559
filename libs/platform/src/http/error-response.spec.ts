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
} from '@solar/core';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors';
import { runInNewContext } from 'node:vm';
import { QueryFailedError } from 'typeorm';
import { errorReply, toErrorResponse } from './error-response';
import { ValidationFailedException } from './validation';

describe('toErrorResponse', () => {
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

/** An error as Node's net module or pg raise them: a message and a code. */
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('toErrorResponse while Redis or PostgreSQL is down', () => {
  const OUTAGE = {
    status: 503,
    body: { message: 'Service temporarily unavailable. Try again later.' },
    headers: { 'Retry-After': '5' },
  };

  it.each([
    ['ioredis giving up after its retries', new MaxRetriesPerRequestError(3)],
    ['ioredis on a closed connection', new Error('Connection is closed.')],
    [
      'ioredis offline without a queue',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['pg losing its connection', new Error('Connection terminated unexpectedly')],
    ['pg-pool timing out', new Error('timeout exceeded when trying to connect')],
    ['pg on a broken client', new Error('Client has encountered a connection error and is not queryable')],
    ['SQLSTATE class 08', withCode('connection failure', '08006')],
    ['an administrator shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['a server still starting', withCode('the database system is starting up', '57P03')],
    [
      "TypeORM's wrapper of a pg error",
      new QueryFailedError('SELECT 1', [], withCode('terminating connection', '57P01')),
    ],
    [
      'BullMQ passing a cause on',
      new Error('could not add the job', { cause: new MaxRetriesPerRequestError(20) }),
    ],
    [
      "Node's socket error from another realm",
      Object.assign(runInNewContext('new Error("connect ECONNREFUSED 127.0.0.1:5432")') as object, {
        code: 'ECONNREFUSED',
      }),
    ],
    ['one of several', new AggregateError([new Error('x'), withCode('connect', 'ECONNREFUSED')])],
  ])('maps %s to a 503 with Retry-After', (_label, error) => {
    expect(toErrorResponse(error)).toEqual(OUTAGE);
  });

  it("keeps a domain 503's own message and adds Retry-After when an outage caused it", () => {
    const error = new ServiceUnavailableError('Telemetry could not be stored. Retry later.', {
      cause: new Error('Connection is closed.'),
    });
    expect(toErrorResponse(error)).toEqual({
      status: 503,
      body: { message: 'Telemetry could not be stored. Retry later.' },
      headers: { 'Retry-After': '5' },
    });
  });

  it('leaves other database errors, client aborts and bugs as they were', () => {
    expect(toErrorResponse(withCode('duplicate key value', '23505'))).toBeUndefined();
    expect(toErrorResponse(new QueryFailedError('SELECT', [], withCode('syntax', '42601')))).toBeUndefined();
    expect(
      toErrorResponse(
        Object.assign(new Error('aborted'), { type: 'request.aborted', status: 400, code: 'ECONNABORTED' }),
      ),
    ).toEqual({ status: 400, body: { message: 'Request aborted' } });
    expect(errorReply(new TypeError('boom'), 'req-1')).toEqual({
      status: 500,
      body: { message: 'Internal server error', requestId: 'req-1' },
      unexpected: true,
    });
  });
});
