export * from './announced-cache';
export * from './redis-connections';
export * from './redis.module';
export * from './redis-locks';
export * from './redis.token';
