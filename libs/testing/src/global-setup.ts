// Relative: Jest runs global setup outside its module mapper, so no @solar/* aliases here.
import { migrate } from '../../database/src/migrate';
import { databaseUrl, dropDatabases, listTestDatabases, newRunId, templateName } from './test-databases';

const TWO_HOURS = 2 * 60 * 60 * 1000;

/** Once per `npm test`: a migrated template database that every test file clones. */
export default async function globalSetup(): Promise<void> {
  await dropDatabases(await listTestDatabases({ olderThanMs: TWO_HOURS }));
  const runId = newRunId();
  process.env.SOLAR_TEST_RUN_ID = runId;
  await migrate(databaseUrl(templateName(runId)));
}
