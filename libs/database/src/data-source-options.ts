import { DataSourceOptions } from 'typeorm';
import { migrations } from './migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface ConnectionLimits {
  /**
   * Default `statement_timeout` of every connection, so that no request holds a connection (and
   * its snapshot) for long. Statements that legitimately run longer raise it for their own
   * transaction (`SET LOCAL`, see `LONG_STATEMENT_TIMEOUT`). Absent: none (the migration runner).
   */
  statementTimeoutSeconds?: number;
}

export function dataSourceOptions(databaseUrl: string, limits: ConnectionLimits = {}): DataSourceOptions {
  const settings = [
    // Doubles as the shortest text that reads back exactly, whatever the server's default:
    // answers and exports take PostgreSQL's text of a number as it is.
    '-c extra_float_digits=1',
  ];
  if (limits.statementTimeoutSeconds !== undefined) {
    settings.push(`-c statement_timeout=${limits.statementTimeoutSeconds * 1000}`);
  }
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
      options: settings.join(' '),
    },
  };
}

/**
 * For the transaction of a maintenance statement that may rightly run long (downsampling,
 * deleting a source's or a user's data, creating a partition): it replaces the pool's short
 * default for that transaction only, and still ends a statement that hangs.
 */
export const LONG_STATEMENT_TIMEOUT = "SET LOCAL statement_timeout = '1h'";
