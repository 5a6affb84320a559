import RedisStore from 'connect-redis';
import session, { SessionData } from 'express-session';
import type { RequestHandler } from 'express';
import Redis from 'ioredis';
import { AppConfig } from '@solar/config';
import { SessionCache } from './session-cache';
import { SESSION_COOKIE, SESSION_TTL_SECONDS } from './session.constants';

/** How often a session's sliding expiry is renewed in Redis, at most, per api process. */
export const SESSION_RENEWAL_INTERVAL_MS = 60_000;
/** Sessions remembered as recently renewed; past this, the stale ones are forgotten. */
const MAX_RENEWALS_REMEMBERED = 10_000;

type Done = (error?: unknown, session?: SessionData) => void;
const ignore: Done = () => undefined;

/**
 * Sessions in Redis, read through the session cache: every save and every end forgets the
 * session in all processes once Redis has it. And express-session renews the expiry of every
 * session it reads (EXPIRE), holding the answer's last byte until Redis has replied: renewing a
 * 7-day expiry once a minute keeps it sliding just the same.
 */
class SlidingRedisStore extends RedisStore {
  private readonly renewedAt = new Map<string, number>();

  constructor(
    options: ConstructorParameters<typeof RedisStore>[0],
    private readonly sessions: SessionCache,
    private readonly now: () => number,
  ) {
    super(options);
  }

  override async get(sid: string, done: Done = ignore): Promise<void> {
    let session: SessionData | undefined;
    try {
      const stored = await this.sessions.lookup(sid, () => this.client.get(this.prefix + sid));
      // Parsed afresh each time: express-session changes the object it is given.
      session = stored ? (JSON.parse(stored) as SessionData) : undefined;
    } catch (error) {
      return done(error);
    }
    return done(null, session);
  }

  override async set(sid: string, data: SessionData, done: Done = ignore): Promise<void> {
    return super.set(sid, data, (error) => this.forgetThen(sid, error, done));
  }

  override async touch(sid: string, data: SessionData, done?: (error?: unknown) => void): Promise<void> {
    const now = this.now();
    if (now - (this.renewedAt.get(sid) ?? -Infinity) < SESSION_RENEWAL_INTERVAL_MS) return done?.();
    if (this.renewedAt.size >= MAX_RENEWALS_REMEMBERED)
      this.forgetRenewalsBefore(now - SESSION_RENEWAL_INTERVAL_MS);
    // Deleted first, so that the map stays in renewal order: oldest first.
    this.renewedAt.delete(sid);
    this.renewedAt.set(sid, now);
    return super.touch(sid, data, done);
  }

  override async destroy(sid: string, done: Done = ignore): Promise<void> {
    this.renewedAt.delete(sid);
    return super.destroy(sid, (error) => this.forgetThen(sid, error, done));
  }

  /** Forgotten even when the write failed: what Redis holds is then unknown. */
  private forgetThen(sid: string, error: unknown, done: Done): Promise<void> {
    return this.sessions.forget(sid).then(() => done(error));
  }

  private forgetRenewalsBefore(instant: number): void {
    for (const [sid, at] of this.renewedAt) {
      if (at >= instant) break;
      this.renewedAt.delete(sid);
    }
    // All renewed within the interval: forgetting them costs one early EXPIRE each.
    if (this.renewedAt.size >= MAX_RENEWALS_REMEMBERED) this.renewedAt.clear();
  }
}

/**
 * Server-side sessions in Redis with a 7-day sliding expiry. The cookie is a browser-session
 * cookie unless the login asked to be remembered (then it carries Max-Age, renewed on use).
 * Requests under `sessionlessPaths` get no session at all.
 */
export function createSessionMiddleware(
  config: AppConfig,
  redis: Redis,
  sessions: SessionCache,
  options: { sessionlessPaths?: string[]; now?: () => number } = {},
): RequestHandler {
  const middleware = session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store: new SlidingRedisStore(
      { client: redis, prefix: 'session:', ttl: SESSION_TTL_SECONDS },
      sessions,
      options.now ?? Date.now,
    ),
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
