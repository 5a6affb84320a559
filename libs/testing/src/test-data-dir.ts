import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Data directories of one `npm test` start with this (the run's id, from the global setup). */
const runPrefix = (runId: string) => `solar-test-${runId}-`;

/**
 * A fresh data directory (`DATA_DIR`) for an app under test. Those of the run are removed by the
 * global teardown, whichever spec made them and however it ended.
 */
export function testDataDir(): string {
  return mkdtempSync(join(tmpdir(), runPrefix(process.env.SOLAR_TEST_RUN_ID ?? 'unit')));
}

/** Removes the data directories `testDataDir` made during the run `runId`. */
export function removeTestDataDirs(runId: string): void {
  for (const name of readdirSync(tmpdir()))
    if (name.startsWith(runPrefix(runId))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
}
