import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { TooManyRequestsError } from '@solar/core';
import { normalizeEmail } from '@solar/domain';
import { RateBucket, RateLimiter } from '@solar/redis';

export const RATE_LIMIT = 'rate-limit:kind';
export const TOO_MANY_REQUESTS = 'Too many requests. Try again later.';

/** `auth`: per client address and per e-mail named in the body; `costly`: per user and route. */
export type RateLimitKind = 'auth' | 'costly';

/**
 * Charges a request to its rate limits before any pipe or handler runs, so a refused request
 * does no work (no hash, no query, no mail). Runs after the global session guard: a costly
 * route's caller is known.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const kind = this.reflector.getAllAndOverride<RateLimitKind | undefined>(RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!kind) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const buckets = kind === 'auth' ? this.authBuckets(request) : this.costlyBuckets(context, request);
    const retryAfterSeconds = await this.limiter.consume(buckets);
    if (retryAfterSeconds !== undefined) throw new TooManyRequestsError(TOO_MANY_REQUESTS, retryAfterSeconds);
    return true;
  }

  /**
   * The auth routes share one count per address (as `trust proxy` resolves `req.ip`; IPv6 by
   * /64, which one client usually holds whole) and one per e-mail, hashed so that no address is
   * readable in Redis. The body is read before validation: an e-mail that is not a string
   * counts toward the address only, and validation refuses it next.
   */
  private authBuckets(request: Request): RateBucket[] {
    const { authPerAddress, authPerEmail, authWindowSeconds } = this.config.limits;
    const address = normalizeIp(request.ip ?? request.socket.remoteAddress ?? 'unknown');
    const buckets = [
      { key: `auth:address:${address}`, limit: authPerAddress, windowSeconds: authWindowSeconds },
    ];
    const email: unknown = (request.body as Record<string, unknown> | undefined)?.email;
    if (typeof email === 'string') {
      const hashed = createHash('sha256').update(normalizeEmail(email)).digest('hex');
      buckets.push({ key: `auth:email:${hashed}`, limit: authPerEmail, windowSeconds: authWindowSeconds });
    }
    return buckets;
  }

  private costlyBuckets(context: ExecutionContext, request: Request): RateBucket[] {
    const user = request.authenticatedUser;
    if (!user) throw new Error('A costly route must be behind the session guard');
    const route = `${context.getClass().name}.${context.getHandler().name}`;
    const { costlyPerUser, costlyWindowSeconds } = this.config.limits;
    return [{ key: `costly:${route}:${user.id}`, limit: costlyPerUser, windowSeconds: costlyWindowSeconds }];
  }
}
