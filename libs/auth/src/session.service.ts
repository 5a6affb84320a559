import { Inject, Injectable } from '@nestjs/common';
import { promisify } from 'node:util';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SESSION_COOKIE, SESSION_TTL_SECONDS } from './session.constants';

/**
 * The account a session is started for, as the credential check read it: the generation read
 * together with the password hash, so a session started with a password replaced meanwhile is
 * already ended.
 */
export interface SessionOwner {
  id: string;
  sessionGeneration: number;
}

/** Starts and ends cookie sessions around express-session's callbacks. */
@Injectable()
export class SessionService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** A fresh session id at every login, so an id planted before login is worth nothing. */
  async start(request: Request, owner: SessionOwner, rememberMe: boolean): Promise<void> {
    await promisify(request.session.regenerate.bind(request.session))();
    request.session.userId = owner.id;
    request.session.generation = owner.sessionGeneration;
    if (rememberMe) request.session.cookie.maxAge = SESSION_TTL_SECONDS * 1000;
    await promisify(request.session.save.bind(request.session))();
  }

  async end(request: Request, response: Response): Promise<void> {
    await promisify(request.session.destroy.bind(request.session))();
    response.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      secure: this.config.cookieSecure,
      sameSite: 'lax',
      path: '/',
    });
  }
}
