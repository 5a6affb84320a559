import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { secretsEqual } from '@solar/core';

export const INTERNAL_API_KEY_HEADER = 'x-internal-api-key';

/** For the broker's callbacks only: the `X-Internal-API-Key` header, compared in constant time. */
@Injectable()
export class InternalApiKeyGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const given = context.switchToHttp().getRequest<Request>().headers[INTERNAL_API_KEY_HEADER];
    if (typeof given !== 'string' || !secretsEqual(given, this.config.internalApiKey)) {
      throw new UnauthorizedException('Invalid internal API key');
    }
    return true;
  }
}
