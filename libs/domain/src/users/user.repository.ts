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
  findUserInfo(id: string): Promise<UserInfo | null> {
    return this.accounts.lookup(id, async () => {
      const [row] = await this.prepared.query<UserInfo>(
        `SELECT id, email, first_name AS "firstName", last_name AS "lastName", roles FROM users WHERE id = $1`,
        [id],
      );
      return row ? Object.freeze({ ...row, roles: Object.freeze(row.roles) as UserInfo['roles'] }) : null;
    });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  async create(user: NewUser): Promise<UserEntity> {
    try {
      return await this.users.save(this.users.create({ ...user, failedAttempts: 0, lockedUntil: null }));
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
   * Counts one failed attempt atomically; the attempt that reaches `maxAttempts` locks the
   * account until `lockUntil` and starts a fresh count. Returns whether the account is now locked.
   */
  async recordFailedAttempt(id: string, maxAttempts: number, lockUntil: Date): Promise<boolean> {
    const rows: Array<{ locked: boolean }> = await this.users.query(
      `UPDATE users
          SET failed_attempts = CASE WHEN failed_attempts + 1 >= $2 THEN 0 ELSE failed_attempts + 1 END,
              locked_until    = CASE WHEN failed_attempts + 1 >= $2 THEN $3 ELSE locked_until END,
              updated_at      = now()
        WHERE id = $1
    RETURNING locked_until = $3 AS locked`,
      [id, maxAttempts, lockUntil],
    );
    return rows[0]?.locked === true;
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
