import { dropDatabases, listTestDatabases } from './test-databases';

export default async function globalTeardown(): Promise<void> {
  const runId = process.env.SOLAR_TEST_RUN_ID;
  if (runId) await dropDatabases(await listTestDatabases({ runId }));
}
