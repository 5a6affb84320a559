import { ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const BUILD_TIMEOUT_MS = 180_000;
const POLL_MS = 200;

/**
 * Builds the apps into `dist/` (`npm run build`) once per test run, for the specs that start the
 * built apps. Jest runs spec files in parallel processes, and two builds writing `dist/` at once
 * would break each other: the first spec to ask builds, the others wait for its result (a lock
 * directory per run; a failed build fails every spec that asked).
 */
export async function buildAppsOnce(root: string): Promise<void> {
  const lock = buildLockOf(process.env.SOLAR_TEST_RUN_ID ?? String(process.pid));
  const result = join(lock, 'result');
  try {
    mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return waitForBuild(result);
  }
  try {
    await promisify(execFile)('npm', ['run', '--silent', 'build'], {
      cwd: root,
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(result, 'ok');
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    writeFileSync(result, `npm run build failed:\n${stdout}${stderr}`);
    throw error;
  }
}

/** The run's lock directory, removed by the global teardown. */
export function buildLockOf(runId: string): string {
  return join(tmpdir(), `solar-test-build-${runId}`);
}

export function removeBuildLock(runId: string): void {
  rmSync(buildLockOf(runId), { recursive: true, force: true });
}

async function waitForBuild(result: string): Promise<void> {
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    let outcome: string | undefined;
    try {
      outcome = readFileSync(result, 'utf8');
    } catch {
      // not written yet
    }
    if (outcome === 'ok') return;
    if (outcome !== undefined) throw new Error(outcome);
    if (Date.now() > deadline) throw new Error('gave up waiting for the build of another spec');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A built app started as its own process, with what it printed so far, line by line. */
export interface AppProcess {
  process: ChildProcessWithoutNullStreams;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node <args>` from `root` with exactly `environment` (and PATH), as a container would. */
export function startAppProcess(
  root: string,
  args: string[],
  environment: Record<string, string>,
): AppProcess {
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, ...environment } });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, lines, exited };
}
