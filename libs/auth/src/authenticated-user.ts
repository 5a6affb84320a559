import { Role, UserInfo } from '@solar/domain';

/** The caller of a request, as the session guard loaded it from the database. */
export type AuthenticatedUser = UserInfo & { roles: Role[] };

declare module 'express-session' {
  interface SessionData {
    userId: string;
    /** The account's session generation at login; the session ends when the account's moves on. */
    generation: number;
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      authenticatedUser?: AuthenticatedUser;
    }
  }
}
