import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';

/** argon2id with the library's defaults (64 MiB, 3 passes): about 0.1 s a hash on a 2-core machine. */
@Injectable()
export class PasswordHasher {
  // Verified against when the e-mail is unknown, so both failures take the same time.
  private readonly decoy = argon2.hash('decoy password that matches nothing', { type: argon2.argon2id });

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id });
  }

  async verify(hash: string | undefined, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash ?? (await this.decoy), password);
    } catch {
      return false;
    }
  }
}
