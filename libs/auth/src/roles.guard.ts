import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Role } from '@solar/domain';
import { REQUIRED_ROLES } from './auth.decorators';

/** Global guard after `SessionGuard`: enforces `@Roles(...)` where a route declares it. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<Role[]>(REQUIRED_ROLES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required || required.length === 0) return true;
    const roles = context.switchToHttp().getRequest<Request>().authenticatedUser?.roles ?? [];
    if (!required.some((role) => roles.includes(role))) throw new ForbiddenException('Insufficient role');
    return true;
  }
}
