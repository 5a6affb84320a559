export * from './clock';
export * from './clock.module';
export * from './constant-time';
export * from './each-concurrently';
export * from './domain-error';
export * from './secret-box';
