import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { MailService } from '@solar/mail';
import { Clock } from '@solar/core';
import { AuthFailedError, ServiceUnavailableError } from '@solar/core';
import { CodeSendLimiter } from './code-send-limiter';
import { PasswordHasher } from './password-hasher';
import { normalizeEmail, toUserInfo, UserInfo } from './user-info';
import { EmailTakenError, SessionAccount, UserRepository } from './user.repository';
import { UserEntity } from './user.entity';
import { generateVerificationCode, hashVerificationCode, verificationCodeMatches } from './verification-code';

export const MAX_FAILED_ATTEMPTS = 5;
export const LOCK_MINUTES = 5;

export const AuthMessages = {
  emailTaken: 'Email already registered',
  invalidCode: 'Invalid or expired code',
  locked: 'Account locked. Try again later.',
  alreadyVerified: 'Email already verified',
  unknownEmail: 'Email not found',
  tooManyCodes: 'Too many codes requested. Try again later.',
  invalidCredentials: 'Invalid email or password',
  notVerified: 'Email not verified',
} as const;

export interface Registration {
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
}

/**
 * Registration, e-mail verification and credential checks.
 * Failed codes and failed passwords both count towards the lockout.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly limiter: CodeSendLimiter,
    private readonly mail: MailService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The session's account, as every authenticated request needs it (cached; null: gone). */
  sessionAccount(userId: string): Promise<SessionAccount | null> {
    return this.users.findSessionAccount(userId);
  }

  async register(registration: Registration): Promise<void> {
    const email = normalizeEmail(registration.email);
    if (await this.users.findByEmail(email)) throw new AuthFailedError(AuthMessages.emailTaken);

    let user: UserEntity;
    try {
      user = await this.users.create({
        email,
        passwordHash: await this.hasher.hash(registration.password),
        firstName: registration.firstName?.trim() || null,
        lastName: registration.lastName?.trim() || null,
        roles: ['User'],
        emailVerified: false,
        verificationCodeHash: null,
        verificationCodeExpiresAt: null,
      });
    } catch (error) {
      if (error instanceof EmailTakenError) throw new AuthFailedError(AuthMessages.emailTaken);
      throw error;
    }

    try {
      await this.limiter.tryRecord(user.id, this.clock.now());
      await this.issueCode(user);
    } catch (error) {
      // Nothing half-stored: an account whose code could not be sent is not kept.
      await this.users.delete(user.id);
      throw new ServiceUnavailableError('Could not send the verification e-mail. Try again later.', {
        cause: error,
      });
    }
  }

  /**
   * Every call on a known account takes an attempt slot before the code is looked at, a verified
   * account's included: any code sent for it is a failed attempt ("already verified"), so that
   * codes cannot be tried against it either.
   */
  async verifyEmail(emailInput: string, code: string): Promise<UserInfo> {
    const user = await this.users.findByEmail(normalizeEmail(emailInput));
    if (!user) throw new AuthFailedError(AuthMessages.invalidCode);
    if (!(await this.takeAttemptSlot(user))) throw new AuthFailedError(AuthMessages.locked);
    if (user.emailVerified) throw new AuthFailedError(AuthMessages.alreadyVerified);

    const now = this.clock.now();
    const valid =
      user.verificationCodeHash !== null &&
      user.verificationCodeExpiresAt !== null &&
      user.verificationCodeExpiresAt > now &&
      verificationCodeMatches(this.config.secretsKey, user.id, code, user.verificationCodeHash);
    if (!valid) throw new AuthFailedError(AuthMessages.invalidCode);

    await this.users.update(user.id, {
      emailVerified: true,
      verificationCodeHash: null,
      verificationCodeExpiresAt: null,
      failedAttempts: 0,
      lockedUntil: null,
    });
    return toUserInfo({ ...user, emailVerified: true });
  }

  async resendCode(emailInput: string): Promise<void> {
    const user = await this.users.findByEmail(normalizeEmail(emailInput));
    if (!user) throw new AuthFailedError(AuthMessages.unknownEmail);
    if (user.emailVerified) throw new AuthFailedError(AuthMessages.alreadyVerified);
    if (!(await this.limiter.tryRecord(user.id, this.clock.now()))) {
      throw new AuthFailedError(AuthMessages.tooManyCodes);
    }
    await this.issueCode(user);
  }

  /**
   * Returns the account whose credentials these are, or throws an `AuthFailedError`. The attempt
   * slot is taken before the comparison, so a burst of parallel guesses gets no more
   * comparisons than the lock allows.
   */
  async authenticate(emailInput: string, password: string): Promise<UserEntity> {
    const user = await this.users.findByEmail(normalizeEmail(emailInput));
    // Hashed either way, a decoy hash for an unknown e-mail, so that an unknown e-mail and a wrong
    // password take the same time.
    if (!user) {
      await this.hasher.verify(undefined, password);
      throw new AuthFailedError(AuthMessages.invalidCredentials);
    }
    // No hash for a locked account: its answer already says the account exists, and a burst of
    // guesses against it then costs no CPU.
    if (!(await this.takeAttemptSlot(user))) throw new AuthFailedError(AuthMessages.locked);
    if (!(await this.hasher.verify(user.passwordHash, password))) {
      throw new AuthFailedError(AuthMessages.invalidCredentials);
    }
    await this.users.resetAttempts(user.id);
    if (!user.emailVerified) throw new AuthFailedError(AuthMessages.notVerified);
    return user;
  }

  private async issueCode(user: UserEntity): Promise<void> {
    const code = generateVerificationCode();
    const expiresAt = new Date(this.clock.now().getTime() + this.config.verificationCodeTtlMinutes * 60_000);
    await this.users.update(user.id, {
      verificationCodeHash: hashVerificationCode(this.config.secretsKey, user.id, code),
      verificationCodeExpiresAt: expiresAt,
    });
    await this.mail.sendVerificationCode(user.email, code);
  }

  /**
   * One attempt slot of `MAX_FAILED_ATTEMPTS` (see `UserRepository.takeAttemptSlot`): false
   * while the account is locked or every slot is taken by attempts that failed or are still
   * being compared; such an attempt is answered "locked" without being evaluated.
   */
  private takeAttemptSlot(user: UserEntity): Promise<boolean> {
    const now = this.clock.now();
    const lockUntil = new Date(now.getTime() + LOCK_MINUTES * 60_000);
    return this.users.takeAttemptSlot(user.id, now, MAX_FAILED_ATTEMPTS, lockUntil);
  }
}
