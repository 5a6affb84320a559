import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export async function healthy(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, {
      signal: AbortSignal.timeout(2000),
    });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// CPU and memory, from /proc

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in seconds; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces: the fields after it start behind the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** A /proc/<pid>/status field in MiB (VmRSS, VmHWM). */
function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pids whose command name is `comm` (redis-server, postgres) and, if given, whose command line
 * contains `argsContain` (a PostgreSQL backend shows its database there: other databases' work
 * on the same server is not ours).
 */
function pidsNamed(comm: string, argsContain?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (argsContain && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(argsContain)) continue;
      pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

export interface ProcessUsage {
  /** Average CPU over the phase, % of one core. */
  cpuPercent: number;
  /** Highest resident set size sampled during the phase (MiB); undefined for groups. */
  peakRssMiB?: number;
}

export interface PhaseUsage {
  seconds: number;
  /** Whole machine, % of all cores busy. */
  machineCpuPercent: number;
  /** CPU of processes not watched (other work on the machine, the kernel), % of one core. */
  otherCpuPercent: number;
  processes: Record<string, ProcessUsage>;
}

interface Watched {
  name: string;
  pids: () => number[];
  sampleRss: boolean;
}

/**
 * Samples CPU time and RSS of named processes (the apps, the benchmark itself, PostgreSQL and
 * Redis as groups) while a phase runs. `begin` → `end` gives per-phase averages and peaks.
 */
/** The direct children of `pid`, from /proc (none once it has exited). */
function childrenOf(pid: number): number[] {
  try {
    const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return listed ? listed.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

export class UsageMeter {
  private readonly watched: Watched[] = [];

  watchPid(name: string, pid: number): void {
    this.watched.push({ name, pids: () => [pid], sampleRss: true });
  }

  /**
   * Points `name` at a new process (an app restarted): phases that begin afterwards measure it,
   * with its child processes when `withChildren` (an app run as several cluster workers).
   */
  rewatchPid(name: string, pid: number, withChildren = false): void {
    const index = this.watched.findIndex((watched) => watched.name === name);
    const entry = { name, pids: () => (withChildren ? [pid, ...childrenOf(pid)] : [pid]), sampleRss: true };
    if (index >= 0) this.watched[index] = entry;
    else this.watched.push(entry);
  }

  watchComm(name: string, comm: string, argsContain?: string): void {
    this.watched.push({ name, pids: () => pidsNamed(comm, argsContain), sampleRss: false });
  }

  /** Starts measuring a phase: `snapshot` reads the figures so far, `end` also stops sampling. */
  begin(): { snapshot: () => PhaseUsage; end: () => PhaseUsage } {
    const startedAt = process.hrtime.bigint();
    const machineStart = machineTicks();
    const startCpu = new Map<string, Map<number, number>>();
    const peaks = new Map<string, number>();
    for (const watched of this.watched) {
      const perPid = new Map<number, number>();
      for (const pid of watched.pids()) {
        const seconds = cpuSeconds(pid);
        if (seconds !== undefined) perPid.set(pid, seconds);
      }
      // An app that has exited is left out of the phase.
      if (perPid.size > 0 || !watched.sampleRss) startCpu.set(watched.name, perPid);
    }
    // The CPU each process had used at its latest sample: one that exits during the phase (a
    // pool's backend, a one-off job) keeps what it used up to then.
    const lastCpu = new Map<string, Map<number, number>>();
    const sample = () => {
      for (const watched of this.watched) {
        if (!startCpu.has(watched.name)) continue;
        const seen = lastCpu.get(watched.name) ?? new Map<number, number>();
        lastCpu.set(watched.name, seen);
        for (const pid of watched.pids()) {
          const seconds = cpuSeconds(pid);
          if (seconds !== undefined) seen.set(pid, seconds);
        }
        if (!watched.sampleRss) continue;
        const rss = statusMiB(watched.pids()[0], 'VmRSS');
        if (rss !== undefined) peaks.set(watched.name, Math.max(peaks.get(watched.name) ?? 0, rss));
      }
    };
    sample();
    const timer = setInterval(sample, 200);
    const snapshot = (): PhaseUsage => {
      sample();
      const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      const machineNow = machineTicks();
      const processes: Record<string, ProcessUsage> = {};
      let watchedSeconds = 0;
      for (const watched of this.watched) {
        const before = startCpu.get(watched.name);
        if (!before) continue; // watched after this phase began
        let used = 0;
        // A process born during the phase (a new pool connection) counts from zero.
        for (const [pid, seconds] of lastCpu.get(watched.name) ?? [])
          used += seconds - (before.get(pid) ?? 0);
        watchedSeconds += used;
        processes[watched.name] = {
          cpuPercent: round((used / seconds) * 100, 1),
          ...(watched.sampleRss ? { peakRssMiB: round(peaks.get(watched.name) ?? 0, 1) } : {}),
        };
      }
      const machine =
        (machineNow.busy - machineStart.busy) / Math.max(1, machineNow.total - machineStart.total);
      const other = (machine * cpus().length * seconds - watchedSeconds) / seconds;
      return {
        seconds: round(seconds, 2),
        machineCpuPercent: round(machine * 100, 1),
        otherCpuPercent: round(Math.max(0, other * 100), 1),
        processes,
      };
    };
    return {
      snapshot,
      end: () => {
        clearInterval(timer);
        return snapshot();
      },
    };
  }

  /** Lifetime peak RSS (VmHWM) of a watched single process, in MiB. */
  static lifetimePeakMiB(pid: number): number | undefined {
    const value = statusMiB(pid, 'VmHWM');
    return value === undefined ? undefined : round(value, 1);
  }
}

/**
 * Waits (at most `maxWaitMs`) for the machine to be nearly idle, so a phase does not share the
 * cores with other work (a test run, a build). Returns the busy share seen last, % of all cores.
 */
export async function waitForQuiet(maxWaitMs: number, busyBelowPercent = 15): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = machineTicks();
    const busy = ((after.busy - before.busy) / Math.max(1, after.total - before.total)) * 100;
    if (busy < busyBelowPercent || Date.now() >= deadline) return round(busy, 1);
  }
}

/** Nearest-rank percentile `p` (0–100) of ascending `sorted`; `whenEmpty` when there are none. */
export function percentile(sorted: readonly number[], p: number, whenEmpty = Number.NaN): number {
  if (sorted.length === 0) return whenEmpty;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
