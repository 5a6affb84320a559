import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { MailService } from '@solar/mail';
import { Clock } from '../common/clock';
import { AuthFailedError, ServiceUnavailableError } from '../common/domain-error';
import { CodeSendLimiter } from './code-send-limiter';
import { PasswordHasher } from './password-hasher';
import { normalizeEmail, toUserInfo, UserInfo } from './user-info';
import { EmailTakenError, UserRepository } from './user.repository';
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
 * Registration, e-mail verification and credential checks (SPEC.md §3.2, §4.1, §5).
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

  async verifyEmail(emailInput: string, code: string): Promise<UserInfo> {
    const user = await this.users.findByEmail(normalizeEmail(emailInput));
    if (!user) throw new AuthFailedError(AuthMessages.invalidCode);
    this.assertNotLocked(user);
    if (user.emailVerified) throw new AuthFailedError(AuthMessages.alreadyVerified);

    const now = this.clock.now();
    const valid =
      user.verificationCodeHash !== null &&
      user.verificationCodeExpiresAt !== null &&
      user.verificationCodeExpiresAt > now &&
      verificationCodeMatches(this.config.secretsKey, user.id, code, user.verificationCodeHash);
    if (!valid) {
      await this.recordFailure(user);
      throw new AuthFailedError(AuthMessages.invalidCode);
    }

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

  /** Returns the account whose credentials these are, or throws an `AuthFailedError`. */
  async authenticate(emailInput: string, password: string): Promise<UserEntity> {
    const user = await this.users.findByEmail(normalizeEmail(emailInput));
    // Always verify a hash, a decoy one for an unknown e-mail, so timing does not tell them apart.
    const passwordMatches = await this.hasher.verify(user?.passwordHash, password);
    if (!user) throw new AuthFailedError(AuthMessages.invalidCredentials);
    this.assertNotLocked(user);
    if (!passwordMatches) {
      await this.recordFailure(user);
      throw new AuthFailedError(AuthMessages.invalidCredentials);
    }
    if (!user.emailVerified) throw new AuthFailedError(AuthMessages.notVerified);
    if (user.failedAttempts > 0 || user.lockedUntil) {
      await this.users.update(user.id, { failedAttempts: 0, lockedUntil: null });
    }
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

  private assertNotLocked(user: UserEntity): void {
    if (user.lockedUntil && user.lockedUntil > this.clock.now())
      throw new AuthFailedError(AuthMessages.locked);
  }

  private async recordFailure(user: UserEntity): Promise<void> {
    const lockUntil = new Date(this.clock.now().getTime() + LOCK_MINUTES * 60_000);
    await this.users.recordFailedAttempt(user.id, MAX_FAILED_ATTEMPTS, lockUntil);
  }
}
