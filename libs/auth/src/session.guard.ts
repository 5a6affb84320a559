import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { UserRepository } from '@solar/domain';
import { IS_PUBLIC } from './auth.decorators';

/**
 * Global guard: every route needs a session unless marked `@Public()`. The account is read
 * afresh on each request, so a deleted account or a changed role takes effect at once.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly users: UserRepository,
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
    const user = userId ? await this.users.findUserInfo(userId) : null;
    if (!user) throw new UnauthorizedException('Authentication required');
    request.authenticatedUser = user;
    return true;
  }
}
