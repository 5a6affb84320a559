export const ROLES = ['User', 'Admin', 'Overseer'] as const;
export type Role = (typeof ROLES)[number];

export const ALL_ROLES: readonly Role[] = ROLES;
export const ADMIN_ROLES: readonly Role[] = ['Admin', 'Overseer'];
