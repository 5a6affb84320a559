import RedisStore from 'connect-redis';
import session from 'express-session';
import type { RequestHandler } from 'express';
import Redis from 'ioredis';
import { AppConfig } from '@solar/config';
import { SESSION_COOKIE, SESSION_TTL_SECONDS } from './session.constants';

/**
 * Server-side sessions in Redis with a 7-day sliding expiry. The cookie is a browser-session
 * cookie unless the login asked to be remembered (then it carries Max-Age, renewed on use).
 * Requests under `sessionlessPaths` get no session at all.
 */
export function createSessionMiddleware(
  config: AppConfig,
  redis: Redis,
  options: { sessionlessPaths?: string[] } = {},
): RequestHandler {
  const middleware = session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store: new RedisStore({ client: redis, prefix: 'session:', ttl: SESSION_TTL_SECONDS }),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, secure: config.cookieSecure, sameSite: 'lax', path: '/' },
  });
  const sessionless = options.sessionlessPaths ?? [];
  if (sessionless.length === 0) return middleware;
  // Device and broker traffic never carries a session: skip the cookie work and the store.
  return (request, response, next) =>
    sessionless.some((path) => request.path === path || request.path.startsWith(`${path}/`))
      ? next()
      : middleware(request, response, next);
}
