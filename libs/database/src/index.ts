export * from './data-source-options';
export * from './database.module';
export * from './ensure-database';
export * from './json-rows';
export * from './migrate';
export * from './prepared-queries';
export * from './run-migrations';
