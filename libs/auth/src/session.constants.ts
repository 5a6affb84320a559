export const SESSION_COOKIE = 'solar.sid';
export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
