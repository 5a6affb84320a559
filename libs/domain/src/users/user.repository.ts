import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { LONG_STATEMENT_TIMEOUT, PreparedQueries } from '@solar/database';
import { AccountCache } from './account-cache';
import { Role } from './role';
import { UserEntity } from './user.entity';
import { UserInfo } from './user-info';

export interface NewUser {
  email: string;
  passwordHash: string;
  firstName: string | null;
  lastName: string | null;
  roles: Role[];
  emailVerified: boolean;
  verificationCodeHash: string | null;
  verificationCodeExpiresAt: Date | null;
}

/** An account as a session sees it: the user, and the generation its sessions must carry. */
export interface SessionAccount {
  user: UserInfo;
  sessionGeneration: number;
}

export interface AdminUserRow {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  roles: Role[];
  emailVerified: boolean;
  createdAt: Date;
  sunSourceCount: number;
}

const UNIQUE_VIOLATION = '23505';

export class EmailTakenError extends Error {}

/** The only place that reads or writes the `users` table, so every change forgets the cached account. */
@Injectable()
export class UserRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly prepared: PreparedQueries,
    private readonly accounts: AccountCache,
  ) {}

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  /**
   * The session's account as every authenticated request needs it, from the account cache (a
   * prepared statement behind it). Frozen: the same object answers many requests.
   */
  findSessionAccount(id: string): Promise<SessionAccount | null> {
    return this.accounts.lookup(id, async () => {
      const [row] = await this.prepared.query<UserInfo & { sessionGeneration: number }>(
        `SELECT id, email, first_name AS "firstName", last_name AS "lastName", roles,
                session_generation AS "sessionGeneration"
           FROM users WHERE id = $1`,
        [id],
      );
      if (!row) return null;
      const { sessionGeneration, ...user } = row;
      return Object.freeze({
        user: Object.freeze({ ...user, roles: Object.freeze(user.roles) as UserInfo['roles'] }),
        sessionGeneration,
      });
    });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  async create(user: NewUser): Promise<UserEntity> {
    try {
      return await this.users.save(
        this.users.create({ ...user, failedAttempts: 0, lockedUntil: null, sessionGeneration: 0 }),
      );
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new EmailTakenError(user.email);
      throw error;
    }
  }

  async update(id: string, changes: Partial<Omit<UserEntity, 'id' | 'createdAt'>>): Promise<void> {
    await this.users.update({ id }, changes);
    await this.accounts.forget(id);
  }

  /**
   * Takes one of the account's `maxAttempts` attempt slots before the credential is compared,
   * in one statement, so that parallel attempts (in any number of processes) cannot all pass.
   * The slot counts as a failed attempt until `resetAttempts`; the slot that fills the last
   * place locks the account until `lockUntil` at once. A lock that has run out starts a fresh
   * count. Returns false, and takes nothing, while the account is locked or every slot is taken.
   */
  async takeAttemptSlot(id: string, now: Date, maxAttempts: number, lockUntil: Date): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [, affected]: [unknown, number] = await this.users.query(
      `UPDATE users
          SET failed_attempts = CASE WHEN locked_until <= $2 THEN 1 ELSE failed_attempts + 1 END,
              locked_until    = CASE WHEN (CASE WHEN locked_until <= $2 THEN 1 ELSE failed_attempts + 1 END) >= $3
                                     THEN $4::timestamptz END,
              updated_at      = now()
        WHERE id = $1
          AND ((locked_until IS NULL AND failed_attempts < $3) OR locked_until <= $2)`,
      [id, now, maxAttempts, lockUntil],
    );
    return affected > 0;
  }

  /**
   * A correct credential: the count starts again and any lock goes. No account-cache notice:
   * the cache holds neither field.
   */
  async resetAttempts(id: string): Promise<void> {
    await this.users.query(
      `UPDATE users SET failed_attempts = 0, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND (failed_attempts <> 0 OR locked_until IS NOT NULL)`,
      [id],
    );
  }

  /**
   * Makes the account an administrator: every role, verified, no pending code, no lock. With a
   * `passwordHash`, also that password, and every session started before ends (its generation
   * moves on), in the same statement.
   */
  async makeAdministrator(id: string, roles: Role[], passwordHash: string | null): Promise<void> {
    await this.users.query(
      `UPDATE users
          SET roles = $2::text[], email_verified = true,
              verification_code_hash = NULL, verification_code_expires_at = NULL,
              failed_attempts = 0, locked_until = NULL,
              password_hash = coalesce($3, password_hash),
              session_generation = session_generation + CASE WHEN $3::text IS NULL THEN 0 ELSE 1 END,
              updated_at = now()
        WHERE id = $1`,
      [id, roles, passwordHash],
    );
    await this.accounts.forget(id);
  }

  /**
   * Removes up to `limit` accounts never verified that were created before `createdBefore` and
   * hold no code still valid at `now` (someone may be verifying right then); returns how many.
   * Rows another transaction holds are skipped for the next run. No account-cache notice: an
   * unverified account never had a session, so no process holds it.
   */
  async deleteUnverifiedBatch(createdBefore: Date, now: Date, limit: number): Promise<number> {
    const [, affected]: [unknown, number] = await this.users.query(
      `DELETE FROM users
        WHERE id IN (SELECT id FROM users
                      WHERE NOT email_verified AND created_at < $1
                        AND (verification_code_expires_at IS NULL OR verification_code_expires_at <= $2)
                      ORDER BY created_at
                      LIMIT $3
                        FOR UPDATE SKIP LOCKED)
          AND NOT email_verified`,
      [createdBefore, now, limit],
    );
    return affected;
  }

  /** Users whose e-mail or name contains `search` (case-insensitive), newest first. */
  async listForAdmin(
    search: string | undefined,
    offset: number,
    limit: number,
  ): Promise<{ rows: AdminUserRow[]; total: number }> {
    const pattern = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const where = `($1::text IS NULL OR u.email ILIKE $1 OR u.first_name ILIKE $1 OR u.last_name ILIKE $1)`;
    const [rows, counted] = await Promise.all([
      this.users.query(
        `SELECT u.id, u.email, u.first_name AS "firstName", u.last_name AS "lastName", u.roles,
                u.email_verified AS "emailVerified", u.created_at AS "createdAt",
                ${this.sunSourceCountSql('u')} AS "sunSourceCount"
           FROM users u
          WHERE ${where}
          ORDER BY u.created_at DESC, u.id
          LIMIT $2 OFFSET $3`,
        [pattern, limit, offset],
      ),
      this.users.query(`SELECT count(*)::int AS total FROM users u WHERE ${where}`, [pattern]),
    ]);
    return { rows: rows as AdminUserRow[], total: (counted as Array<{ total: number }>)[0].total };
  }

  async sunSourceCount(userId: string): Promise<number> {
    const rows: Array<{ count: number }> = await this.users.query(
      `SELECT ${this.sunSourceCountSql('u')} AS count FROM users u WHERE u.id = $1`,
      [userId],
    );
    return rows[0]?.count ?? 0;
  }

  /** With everything the user owns, through the foreign keys: all their telemetry too. */
  async delete(id: string): Promise<boolean> {
    const result = await this.users.manager.transaction(async (manager) => {
      await manager.query(LONG_STATEMENT_TIMEOUT);
      return manager.delete(UserEntity, { id });
    });
    await this.accounts.forget(id);
    return (result.affected ?? 0) > 0;
  }

  private sunSourceCountSql(alias: string): string {
    return `(SELECT count(*)::int FROM sun_sources s WHERE s.user_id = ${alias}.id)`;
  }
}
