import { DataSource } from 'typeorm';

// Any constant works; it only has to be the same in every app of the deployment.
const MIGRATION_LOCK_ID = 7_351_946_201;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so that apps starting
 * together apply each migration exactly once. Returns the names of the migrations applied.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await lockRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await lockRunner.release();
  }
}
