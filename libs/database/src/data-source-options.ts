import { DataSourceOptions } from 'typeorm';
import { migrations } from './migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export function dataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    namingStrategy: new SnakeNamingStrategy(),
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    extra: {
      max: 10,
      application_name: 'solar',
      // Doubles as the shortest text that reads back exactly, whatever the server's default:
      // answers and exports take PostgreSQL's text of a number as it is.
      options: '-c extra_float_digits=1',
    },
  };
}
