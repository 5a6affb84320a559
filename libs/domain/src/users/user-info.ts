import { Role } from './role';
import { UserEntity } from './user.entity';

/** UserInfo: what a user may see of an account. */
export interface UserInfo {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  roles: Role[];
}

/** The administration view of an account. */
export interface AdminUserInfo extends UserInfo {
  createdAt: string;
  emailVerified: boolean;
  sunSourceCount: number;
}

export function toUserInfo(user: UserEntity): UserInfo {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    roles: [...user.roles],
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
