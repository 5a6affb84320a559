export * from './announced-cache';
export * from './rate-limiter';
export * from './redis-connections';
export * from './redis.module';
export * from './redis-locks';
export * from './redis-script';
export * from './redis.token';
