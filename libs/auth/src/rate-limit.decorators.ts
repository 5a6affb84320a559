import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { RATE_LIMIT, RateLimitGuard, RateLimitKind } from './rate-limit.guard';

export class TooManyRequestsDto {
  @ApiProperty({ example: 'Too many requests. Try again later.' })
  message!: string;
}

function rateLimited(kind: RateLimitKind, description: string) {
  return applyDecorators(
    SetMetadata(RATE_LIMIT, kind),
    UseGuards(RateLimitGuard),
    ApiTooManyRequestsResponse({
      type: TooManyRequestsDto,
      description,
      headers: {
        'Retry-After': {
          description: 'Seconds until a request would be accepted again',
          schema: { type: 'integer', minimum: 1 },
        },
      },
    }),
  );
}

/**
 * Register, login, verify-email and resend-code: `AUTH_RATE_LIMIT_PER_ADDRESS` requests of all
 * of them together per client address, and `AUTH_RATE_LIMIT_PER_EMAIL` per e-mail, in each
 * window of `AUTH_RATE_LIMIT_WINDOW_SECONDS`.
 */
export const AuthRateLimit = () =>
  rateLimited('auth', 'Too many requests from this address, or for this e-mail, in the current window');

/**
 * A route whose answer costs the server much (an external call, a scan, a job):
 * `COSTLY_RATE_LIMIT_PER_USER` requests per user per window of `COSTLY_RATE_LIMIT_WINDOW_SECONDS`,
 * counted for each route apart.
 */
export const CostlyRoute = () =>
  rateLimited('costly', 'Too many requests of this route by this user in the current window');
