import { DataSource } from 'typeorm';
import { loadConfig } from '@solar/config';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './ensure-database';
import { runMigrations } from './run-migrations';

/** `npm run migrate`: creates the database if needed and applies pending migrations. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = await new DataSource(dataSourceOptions(databaseUrl)).initialize();
  try {
    return await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  migrate(loadConfig().databaseUrl).then(
    (applied) => {
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
