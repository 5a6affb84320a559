import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiCookieAuth, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ADMIN_ROLES, ALL_ROLES, Role } from '@solar/domain';
import { AuthenticatedUser } from './authenticated-user';
import { InternalApiKeyGuard } from './internal-api-key.guard';

export const IS_PUBLIC = 'auth:isPublic';
export const REQUIRED_ROLES = 'auth:roles';

/** Names of the OpenAPI security schemes (the api's document defines them). */
export const SESSION_SCHEME = 'cookie';
export const INTERNAL_KEY_SCHEME = 'internalKey';

const withoutSession = () => SetMetadata(IS_PUBLIC, true);

/**
 * Opens a route (or every route of a controller) to callers without a session (deny is the
 * default). Documented with the empty security requirement `{}`: no credentials needed.
 */
export const Public = () => applyDecorators(withoutSession(), ApiSecurity({}));

/**
 * Documents what the global session guard enforces on a route or controller not marked
 * `@Public()`: the session cookie, and 401 without a valid session.
 */
export const ApiSessionAuth = () =>
  applyDecorators(
    ApiCookieAuth(SESSION_SCHEME),
    ApiUnauthorizedResponse({ description: 'No valid session' }),
  );

/** The broker's callbacks: no session, the `X-Internal-API-Key` header instead (401 without it). */
export const InternalKeyAuth = () =>
  applyDecorators(
    withoutSession(),
    UseGuards(InternalApiKeyGuard),
    ApiSecurity(INTERNAL_KEY_SCHEME),
    ApiUnauthorizedResponse({ description: 'Wrong or missing internal key' }),
  );

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
