import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { Clock } from '@solar/core';
import { UserRepository } from './user.repository';

/** Accounts removed per statement: a short lock on a few rows at a time, never the whole table. */
export const CLEANUP_BATCH_SIZE = 500;

export interface UnverifiedAccountCleanupCounts {
  accountsRemoved: number;
}

/**
 * Removes accounts never verified within `limits.unverifiedAccountMaxAgeHours` of their
 * registration, so that an address registered by someone who never received its code is freed
 * and abandoned registrations do not pile up. An account whose last code is still valid stays
 * until the next run.
 */
@Injectable()
export class UnverifiedAccountCleanup {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(): Promise<UnverifiedAccountCleanupCounts> {
    const now = this.clock.now();
    const createdBefore = new Date(
      now.getTime() - this.config.limits.unverifiedAccountMaxAgeHours * 3_600_000,
    );
    let accountsRemoved = 0;
    for (;;) {
      const removed = await this.users.deleteUnverifiedBatch(createdBefore, now, CLEANUP_BATCH_SIZE);
      accountsRemoved += removed;
      if (removed < CLEANUP_BATCH_SIZE) return { accountsRemoved };
    }
  }
}
