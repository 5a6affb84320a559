import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { percentile } from '../support/processes';

export interface Timings {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Timings {
  const sorted = [...samples].sort((a, b) => a - b);
  const r = (value: number) => Math.round(value * 100) / 100;
  return {
    n: sorted.length,
    p50: r(percentile(sorted, 50)),
    p99: r(percentile(sorted, 99)),
    min: r(sorted[0] ?? Number.NaN),
    max: r(sorted[sorted.length - 1] ?? Number.NaN),
    mean: r(sorted.reduce((total, value) => total + value, 0) / Math.max(1, sorted.length)),
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP: one keep-alive connection, as a browser tab would use; no `fetch` (its own overhead is
// a good part of a millisecond, which would be charged to the api).

export interface HttpTarget {
  port: number;
  cookie?: string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** From the request's start to the last byte of the answer. */
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export function destroyAgent(): void {
  agent.destroy();
}

export function httpRequest(
  target: HttpTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<HttpResult> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method,
        path,
        agent,
        headers: {
          accept: 'application/json',
          ...(target.cookie ? { cookie: target.cookie } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(payload);
  });
}

export interface DownloadResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  /** Line feeds seen (CSV: records + the header line). */
  lineFeeds: number;
  firstByteMs: number;
  ms: number;
  /** The first bytes of a non-200 answer (its error message). */
  errorText?: string;
}

/**
 * Streams a download without keeping it: counts bytes and line feeds, optionally appending the
 * chunks to a file (to check an .xlsx afterwards), and measures time to first and last byte.
 */
export function download(target: HttpTarget, path: string, saveTo?: string): Promise<DownloadResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let fd = saveTo ? openSync(saveTo, 'w') : undefined;
    const close = () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    };
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: 'GET',
        path,
        agent: false,
        headers: target.cookie ? { cookie: target.cookie } : {},
      },
      (res) => {
        let bytes = 0;
        let lineFeeds = 0;
        let firstByteMs = Number.NaN;
        let errorText = '';
        res.on('data', (chunk: Buffer) => {
          if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lineFeeds += 1;
          if (res.statusCode !== 200 && errorText.length < 500) errorText += chunk.toString('utf8');
          if (fd !== undefined) writeSync(fd, chunk);
        });
        res.on('end', () => {
          close();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            lineFeeds,
            firstByteMs,
            ms: performance.now() - started,
            ...(errorText ? { errorText: errorText.slice(0, 500) } : {}),
          });
        });
        res.on('error', (error) => {
          close();
          reject(error);
        });
        res.on('aborted', () => {
          close();
          reject(new Error(`download of ${path} aborted by the server`));
        });
      },
    );
    req.on('error', reject);
    // Idle time: an export that stops sending for a minute has hung.
    req.setTimeout(60_000, () => req.destroy(new Error(`download of ${path} sent nothing for 60 s`)));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// Resident memory of another process, from /proc

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Peak RSS of `pid` while `work` runs: sampled every `everyMs`, and, where the kernel lets us
 * reset the high-water mark (`5` into /proc/<pid>/clear_refs), the exact peak (VmHWM) too.
 */
export async function withPeakRss<T>(
  pid: number,
  everyMs: number,
  work: () => Promise<T>,
): Promise<{ result: T; baselineMiB: number; sampledPeakMiB: number; hwmPeakMiB?: number; samples: number }> {
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    hwmReset = true;
  } catch {
    // not permitted here: the samples alone
  }
  const baselineMiB = (statusKiB(pid, 'VmRSS') ?? 0) / 1024;
  let sampledPeakMiB = baselineMiB;
  let samples = 0;
  const sample = () => {
    const kib = statusKiB(pid, 'VmRSS');
    samples += 1;
    if (kib !== undefined) sampledPeakMiB = Math.max(sampledPeakMiB, kib / 1024);
  };
  const timer = setInterval(sample, everyMs);
  try {
    const result = await work();
    sample();
    const hwm = hwmReset ? statusKiB(pid, 'VmHWM') : undefined;
    return {
      result,
      baselineMiB,
      sampledPeakMiB,
      ...(hwm !== undefined ? { hwmPeakMiB: hwm / 1024 } : {}),
      samples,
    };
  } finally {
    clearInterval(timer);
  }
}
