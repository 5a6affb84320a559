import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import { ADMIN_ROLES, ALL_ROLES, Role } from '@solar/domain';
import { AuthenticatedUser } from './authenticated-user';

export const IS_PUBLIC = 'auth:isPublic';
export const REQUIRED_ROLES = 'auth:roles';

/** Opens a route to callers without a session (deny is the default). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The caller needs at least one of these roles (403 otherwise). */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);

/** Policy `Omni`: any signed-in role, User, Admin or Overseer. */
export const Omni = () => Roles(...ALL_ROLES);

/** Policy `Admin,Overseer`: administrators only. */
export const AdminPlus = () => Roles(...ADMIN_ROLES);

/** The authenticated caller; a route without the session guard in front of it is a bug. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser => {
    const user = context.switchToHttp().getRequest<Request>().authenticatedUser;
    if (!user) throw new Error('CurrentUser used on a route that no session guard protects');
    return user;
  },
);
