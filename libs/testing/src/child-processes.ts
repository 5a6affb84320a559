import { ChildProcess, spawn } from 'node:child_process';

/**
 * A Node.js process a test or benchmark starts (an app run from its sources or its build) and
 * may kill; what it printed is kept for a failure report.
 */
export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** The last lines of its output, for a failure report. */
  tail: string[];
  /** Every line whose JSON `msg` is in `keep` (e.g. the ingestor's summaries). */
  kept: Array<Record<string, unknown>>;
  /** Warnings and errors (pino level ≥ 40) by message, with a count. */
  problems: Map<string, number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const TAIL_LINES = 200;

/** Starts `node <script>` with `env` (and only PATH from ours), collecting its log lines. */
export function startNode(
  name: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; keep?: string[] },
): Child {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const running: Child = {
    name,
    process: child,
    pid: child.pid,
    tail: [],
    kept: [],
    problems: new Map(),
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  const keep = new Set(options.keep ?? []);
  let partial = '';
  const collect = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      running.tail.push(line);
      if (running.tail.length > TAIL_LINES) running.tail.shift();
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.msg === 'string' && keep.has(parsed.msg)) running.kept.push(parsed);
        if (typeof parsed.level === 'number' && parsed.level >= 40) {
          const err = parsed.err as { message?: unknown } | undefined;
          const detail = typeof err?.message === 'string' ? `: ${err.message}` : '';
          const key = `${String(parsed.msg)}${detail}`.slice(0, 200);
          running.problems.set(key, (running.problems.get(key) ?? 0) + 1);
        }
      } catch {
        // not JSON: only in the tail
      }
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return running;
}

export function isRunning(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Only this child, by its pid. */
export async function stopChild(
  child: Child,
  graceMs = 40_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (!isRunning(child)) return child.exited;
  child.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (isRunning(child)) child.process.kill('SIGKILL');
      resolve();
    }, graceMs);
  });
  const result = await Promise.race([child.exited, killed.then(() => child.exited)]);
  clearTimeout(timer);
  return result;
}
