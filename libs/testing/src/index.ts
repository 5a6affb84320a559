export * from './fake-clock';
export * from './mail-capture';
export * from './seeded-random';
export * from './test-config';
export * from './test-databases';
export * from './test-environment';
export * from './test-redis';
export * from './fake-open-meteo';
