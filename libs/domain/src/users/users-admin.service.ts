import { Injectable, Logger } from '@nestjs/common';
import { BadRequestError, ForbiddenError, NotFoundError } from '@solar/core';
import { ImageStore } from '../images/image-store';
import { SunSourceRepository } from '../sun-sources/sun-source.repository';
import { SunSourcesService } from '../sun-sources/sun-sources.service';
import { PasswordHasher } from './password-hasher';
import { SystemStats, SystemStatsRepository } from './system-stats.repository';
import { ALL_ROLES, Role } from './role';
import { AdminUserInfo, normalizeEmail } from './user-info';
import { AdminUserRow, EmailTakenError, UserRepository } from './user.repository';
import { UserEntity } from './user.entity';

export interface Actor {
  id: string;
  roles: readonly Role[];
}

export interface UserPage {
  items: AdminUserInfo[];
  total: number;
  page: number;
  pageSize: number;
}

export const MAX_PAGE_SIZE = 100;

/** User management for administrators. */
@Injectable()
export class UsersAdminService {
  private readonly logger = new Logger(UsersAdminService.name);

  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly systemStats: SystemStatsRepository,
    private readonly images: ImageStore,
    private readonly sources: SunSourceRepository,
    private readonly sunSources: SunSourcesService,
  ) {}

  /** `page` starts at 1; `pageSize` is clamped to 1..100. */
  async list(page: number, pageSize: number, search?: string): Promise<UserPage> {
    const size = Math.min(Math.max(pageSize, 1), MAX_PAGE_SIZE);
    const current = Math.max(page, 1);
    const { rows, total } = await this.users.listForAdmin(
      search?.trim() || undefined,
      (current - 1) * size,
      size,
    );
    return { items: rows.map(toAdminUserInfo), total, page: current, pageSize: size };
  }

  /** Only an Overseer may grant the Overseer role or change an Overseer's roles. */
  async setRoles(actor: Actor, userId: string, roles: Role[]): Promise<AdminUserInfo> {
    const target = await this.findOrFail(userId);
    const unique = ALL_ROLES.filter((role) => roles.includes(role));
    const touchesOverseer = unique.includes('Overseer') || target.roles.includes('Overseer');
    if (touchesOverseer && !actor.roles.includes('Overseer')) {
      throw new ForbiddenError('Only an Overseer may grant or revoke the Overseer role');
    }
    await this.users.update(target.id, { roles: unique });
    return toAdminUserInfo({
      ...target,
      roles: unique,
      sunSourceCount: await this.users.sunSourceCount(target.id),
    });
  }

  /**
   * Deletes an account; its groups, sources and their data go with it (foreign keys cascade),
   * then its images, and its sources' devices are cut off.
   */
  async delete(actor: Actor, userId: string): Promise<void> {
    if (actor.id === userId) throw new BadRequestError('You cannot delete your own account');
    const target = await this.findOrFail(userId);
    if (target.roles.includes('Overseer') && !actor.roles.includes('Overseer')) {
      throw new ForbiddenError('Only an Overseer may delete an Overseer');
    }
    const sourceIds = await this.sources.idsOwnedBy(target.id);
    await this.users.delete(target.id);
    await this.images.deleteAllOf(target.id);
    await Promise.all(sourceIds.map((id) => this.sunSources.revokeDevices(id)));
  }

  stats(): Promise<SystemStats> {
    return this.systemStats.read();
  }

  /**
   * Makes sure the configured administrator exists, verified, unlocked, with every role and
   * `password`. The operator who sets the e-mail owns that address: an existing account with it
   * whose password is not `password` (anybody may register any address, unverified) is taken
   * over, not trusted: it gets `password` and every earlier session of it ends. Refusing to start
   * instead would let whoever registered the address first block the deployment. An account
   * that already has `password` keeps its sessions, so a restart logs nobody out.
   */
  async ensureAdministrator(emailInput: string, password: string): Promise<void> {
    const email = normalizeEmail(emailInput);
    const existing = await this.users.findByEmail(email);
    if (!existing) {
      try {
        await this.users.create({
          email,
          passwordHash: await this.hasher.hash(password),
          firstName: null,
          lastName: null,
          roles: [...ALL_ROLES],
          emailVerified: true,
          verificationCodeHash: null,
          verificationCodeExpiresAt: null,
        });
        this.logger.log(`created administrator account ${email}`);
        return;
      } catch (error) {
        // Another replica created it at the same moment: make sure of it instead.
        if (!(error instanceof EmailTakenError)) throw error;
        return this.ensureAdministrator(emailInput, password);
      }
    }
    if (!(await this.hasher.verify(existing.passwordHash, password))) {
      await this.users.makeAdministrator(existing.id, [...ALL_ROLES], await this.hasher.hash(password));
      this.logger.warn(
        `took over the existing account ${email} as administrator: password set from ADMIN_PASSWORD, earlier sessions ended`,
      );
      return;
    }
    const missingRole = ALL_ROLES.some((role) => !existing.roles.includes(role));
    if (missingRole || !existing.emailVerified || existing.lockedUntil !== null) {
      await this.users.makeAdministrator(existing.id, [...ALL_ROLES], null);
      this.logger.log(`granted administrator roles to ${email}`);
    }
  }

  private async findOrFail(userId: string): Promise<UserEntity> {
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }
}

function toAdminUserInfo(row: AdminUserRow | (UserEntity & { sunSourceCount: number })): AdminUserInfo {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    roles: [...row.roles],
    createdAt: new Date(row.createdAt).toISOString(),
    emailVerified: row.emailVerified,
    sunSourceCount: row.sunSourceCount,
  };
}
