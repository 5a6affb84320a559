import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AccountsService } from '@solar/domain';
import { IS_PUBLIC } from './auth.decorators';

/**
 * Global guard: every route needs a session unless marked `@Public()`. The account is read
 * afresh on each request, so a deleted account, a changed role or the end of all the account's
 * sessions (its session generation moved on) takes effect at once.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly accounts: AccountsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;

    const request = context.switchToHttp().getRequest<Request>();
    const userId = request.session?.userId;
    const account = userId ? await this.accounts.sessionAccount(userId) : null;
    // A session saved before generations existed carries none: it belongs to generation 0.
    if (!account || account.sessionGeneration !== (request.session.generation ?? 0)) {
      throw new UnauthorizedException('Authentication required');
    }
    request.authenticatedUser = account.user;
    return true;
  }
}
