import { removeBuildLock } from './built-apps';
import { removeTestDataDirs } from './test-data-dir';
import { dropDatabases, listTestDatabases } from './test-databases';

export default async function globalTeardown(): Promise<void> {
  const runId = process.env.SOLAR_TEST_RUN_ID;
  if (!runId) return;
  removeBuildLock(runId);
  removeTestDataDirs(runId);
  await dropDatabases(await listTestDatabases({ runId }));
}
