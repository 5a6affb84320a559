import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './ensure-database';
import { runMigrations } from './run-migrations';

/**
 * Creates the database if needed and applies pending migrations; returns their names. Its own
 * connections have no statement_timeout: a migration rewriting a large table may take long.
 */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = await new DataSource(dataSourceOptions(databaseUrl)).initialize();
  try {
    return await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
