import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Pool, PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';
import { SecretBox } from '@solar/core';
import { databaseUrl, freePort, isRunning, startNode, waitFor, withServer } from '@solar/testing';
import { healthy, PhaseUsage, round, UsageMeter, waitForQuiet } from './support/processes';
import { log, RunResources } from './support/run-resources';
import {
  BENCH_PASSWORD,
  COARSE_STEP_MS,
  Dataset,
  dataEnd,
  FINE_STEP_MS,
  findDataset,
  loadTelemetry,
  LoadStats,
  seedOwners,
} from './query/dataset';
import {
  destroyAgent,
  download,
  DownloadResult,
  httpRequest,
  HttpTarget,
  summarize,
  Timings,
  withPeakRss,
} from './query/measure';
import { CapturedStatements, captureExportStatement, Statement } from './query/statements';

/**
 * `npm run bench:query`: the issue's query benchmark. Creates a database of its own, fills it
 * server-side with 100 sources × 400 days of 5-minute telemetry (≈ 11.5 M rows) plus one source
 * at 10-second spacing, starts the built api on it, and times each read endpoint over HTTP
 * (p50/p99 of sequential requests on one keep-alive connection) beside its floor: the very SQL
 * the endpoint runs (captured from the api's repository), timed through `pg` on the same
 * database with the same parameters, sent as psql sends it: parsed and planned on every run.
 * For the answers PostgreSQL encodes (history, hourly, daily up to 60 days), that SQL writes the
 * JSON objects: the floor includes the encoding, as the api's time does. (The api prepares its
 * hot reads, so it plans them once per connection.) Then the CSV and Excel exports: rows per
 * second and the api's peak RSS growth. Prints a table and writes bench/results/query-<date>.json.
 */

const root = join(__dirname, '..');
const DAY = 86_400_000;
const TARGET_P50_MS = 50;
const TARGET_RATIO = 1.5;
const TARGET_CSV_ROWS_PER_SECOND = 100_000;
const TARGET_XLSX_ROWS_PER_SECOND = 30_000;
const TARGET_RSS_GROWTH_MB = 100;
const EXPORT_RANGE_DAYS = 33;
const WATCHDOG_MS = 45 * 60_000;

// ---------------------------------------------------------------------------------------------
// Options

const { values: flags } = parseArgs({
  options: {
    sources: { type: 'string', default: '100' },
    owned: { type: 'string', default: '50' },
    days: { type: 'string', default: '400' },
    'fine-days': { type: 'string', default: String(EXPORT_RANGE_DAYS) },
    requests: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1000' },
    'warmup-seconds': { type: 'string', default: '15' },
    'export-runs': { type: 'string', default: '3' },
    'export-warmup': { type: 'string', default: '1' },
    'load-connections': { type: 'string', default: String(Math.max(1, Math.min(4, cpus().length))) },
    phases: { type: 'string', default: 'queries,exports' },
    only: { type: 'string' },
    database: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'app-root': { type: 'string' },
    profile: { type: 'string' },
    'quiet-wait': { type: 'string', default: '30' },
    help: { type: 'boolean', default: false },
  },
});

if (flags.help) {
  console.log(`npm run bench:query -- [options]
  --sources N           sources with 5-minute data (100)
  --owned N             of which one user owns N: faults, batch latest and the single-source queries (50)
  --days N              days of 5-minute data, ending now (400)
  --fine-days N         days of the 10-second source, ending now (${EXPORT_RANGE_DAYS}: the export's full range)
  --requests N          timed requests per query and round, and as many floor runs (300)
  --rounds N            rounds over all queries; the figures are of all rounds' requests (3)
  --warmup N            untimed requests of each query first, each with its floor run (1000)
  --warmup-seconds S    ... or fewer, once a query has been warming up for S seconds (15)
  --export-runs N       timed runs of each export (3), after --export-warmup N untimed (1)
  --load-connections N  parallel INSERT sessions while loading (cores, at most 4)
  --phases LIST         queries,exports (both)
  --only LIST           only these query cases (names as printed, comma-separated)
  --database NAME       reuse a database an earlier --keep run left (no load)
  --keep                keep the database (prints its name; reuse it with --database)
  --no-build            use dist/ as it is
  --app-root DIR        run the api from DIR/dist (a patched copy, to measure a change; implies --no-build)
  --profile DIR         write a V8 CPU profile of the api to DIR
  --quiet-wait S        before measuring, wait up to S seconds for the machine to be idle (30)`);
  process.exit(0);
}

function positive(name: string, value: string | undefined): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw new Error(`--${name} must be a positive integer, not ${value}`);
  return number;
}

const options = {
  sources: positive('sources', flags.sources),
  owned: positive('owned', flags.owned),
  days: positive('days', flags.days),
  fineDays: positive('fine-days', flags['fine-days']),
  requests: positive('requests', flags.requests),
  rounds: positive('rounds', flags.rounds),
  warmup: Number(flags.warmup) || 0,
  warmupSeconds: Number(flags['warmup-seconds']) || 0,
  exportRuns: positive('export-runs', flags['export-runs']),
  exportWarmup: Number(flags['export-warmup']) || 0,
  loadConnections: positive('load-connections', flags['load-connections']),
  phases: new Set((flags.phases ?? '').split(',').map((phase) => phase.trim())),
  only: flags.only ? new Set(flags.only.split(',').map((name) => name.trim())) : undefined,
  reuse: flags.database,
  keep: flags.keep || flags.database !== undefined,
  build: !flags['no-build'] && !flags['app-root'],
  appRoot: flags['app-root'] ?? root,
  profileDir: flags.profile,
  quietWaitSeconds: Number(flags['quiet-wait']) || 0,
};
if (options.owned > options.sources) throw new Error('--owned must not exceed --sources');
for (const phase of options.phases) {
  if (!['queries', 'exports'].includes(phase)) throw new Error(`unknown phase ${phase}`);
}

// ---------------------------------------------------------------------------------------------
// What the run creates, and its removal

const resources = new RunResources({
  label: 'query',
  appRoot: options.appRoot,
  database: options.reuse,
  keepDatabase: options.keep,
  release: destroyAgent,
});

// ---------------------------------------------------------------------------------------------
// Helpers

const iso = (date: Date) => date.toISOString();
const MB = (mib: number) => round((mib * 2 ** 20) / 1e6, 1);

const phaseSeconds: Record<string, number> = {};
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    phaseSeconds[name] = round((performance.now() - started) / 1000, 1);
    log(`${name}: ${phaseSeconds[name]} s`);
  }
}

async function login(port: number, email: string): Promise<string> {
  const answer = await httpRequest({ port }, 'POST', '/api/auth/login', { email, password: BENCH_PASSWORD });
  const setCookie = answer.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie : [setCookie ?? ''])
    .map((header) => header.split(';')[0])
    .find((pair) => pair.startsWith('solar.sid='));
  if (answer.status !== 200 || !cookie) {
    throw new Error(
      `login of ${email} failed: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  }
  return cookie;
}

/** What an answer holds, for the table: items of an array, keys of an object, a report's hours. */
function describeBody(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (Array.isArray(parsed)) return `${parsed.length} items`;
    if (parsed && typeof parsed === 'object') {
      const report = parsed as { hourlyData?: unknown[]; dataPoints?: number };
      if (Array.isArray(report.hourlyData))
        return `${report.dataPoints} points, ${report.hourlyData.length} hours`;
      if ('sunSourceId' in parsed) return '1 point';
      if ('user' in parsed || 'connectionType' in parsed) return 'object';
      return `${Object.keys(parsed).length} sources`;
    }
    return typeof parsed;
  } catch {
    return `${body.length} bytes`;
  }
}

// ---------------------------------------------------------------------------------------------
// Query cases

interface QueryCase {
  name: string;
  description: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  target: HttpTarget;
  /** The SQL the endpoint runs for its answer (captured when the floor is measured). */
  statements?: () => Promise<Statement[]>;
  /** The api runs the statements concurrently (the report): so does the floor. */
  concurrent?: boolean;
  /** A reference row (fixed cost of a request), no target. */
  reference?: boolean;
}

interface QueryResult {
  name: string;
  description: string;
  request: string;
  answer: string;
  /** Untimed requests (and floor runs) before the timed ones. */
  warmupRequests: number;
  /** p50 of the first warm-up requests (as many as are timed), before V8 has optimized their path. */
  firstRequestsP50?: number;
  http: Timings;
  floor?: Timings;
  /** The statements one after another (the report's four); equal to `floor` for one. */
  floorSequentialP50?: number;
  /** EXPLAIN ANALYZE's execution time, summed over the statements. */
  serverMs?: number;
  ratio?: number;
  pass?: boolean;
  /** CPU used meanwhile by processes other than the api, PostgreSQL, Redis and the bench, % of one core (the most of any round). */
  otherCpuPercent: number;
  rounds: RoundFigures[];
  statements?: Array<{ sql: string; params: unknown[]; plan: string }>;
}

/** One round's own figures of a case. */
interface RoundFigures {
  httpP50: number;
  floorP50?: number;
  ratio?: number;
  otherCpuPercent: number;
  usage: PhaseUsage;
}

function queryCases(dataset: Dataset, owner: HttpTarget): QueryCase[] {
  const captured = new CapturedStatements(options.appRoot);
  const source = dataset.ownedSourceIds[0];
  const end = dataset.end;
  const back = (days: number) => new Date(end.getTime() - days * DAY);
  const range = (days: number) => ({ start: back(days), end });
  const query = (days: number) => `startTime=${iso(back(days))}&endTime=${iso(end)}`;
  const metrics = `/api/sunsourcemetrics/${source}`;
  return [
    {
      name: 'auth/me',
      description: 'session only (reference: the fixed cost of a request)',
      method: 'GET',
      path: '/api/auth/me',
      target: owner,
      reference: true,
    },
    {
      name: 'sunsource',
      description: 'session + ownership lookup (reference)',
      method: 'GET',
      path: `/api/sunsources/${source}`,
      target: owner,
      reference: true,
    },
    {
      name: 'latest',
      description: 'latest point of one source',
      method: 'GET',
      path: `${metrics}/latest`,
      target: owner,
      statements: () => captured.latest(source),
    },
    {
      name: 'history-1000',
      description: 'history, last 7 days, limit 1000',
      method: 'GET',
      path: `${metrics}/history?${query(7)}&limit=1000`,
      target: owner,
      statements: () => captured.history(source, range(7), 1000),
    },
    {
      name: 'aggregated-90d',
      description: 'hourly aggregates, 90 days',
      method: 'GET',
      path: `${metrics}/aggregated?${query(90)}`,
      target: owner,
      statements: () => captured.hourly(source, range(90)),
    },
    {
      name: 'daily-60d',
      description: 'daily summary, 60 days',
      method: 'GET',
      path: `${metrics}/daily-summary?${query(60)}`,
      target: owner,
      statements: () => captured.dailySummaries(source, range(60)),
    },
    {
      name: 'daily-400d',
      description: 'daily summary, 400 days (ISO weeks)',
      method: 'GET',
      path: `${metrics}/daily-summary?${query(Math.min(400, options.days))}`,
      target: owner,
      statements: () => captured.daily(source, range(Math.min(400, options.days))),
    },
    {
      name: 'report-week',
      description: 'report, period=week (4 statements, concurrent)',
      method: 'GET',
      path: `/api/sunsourcedata/report/${source}?period=week`,
      target: owner,
      // The api's range: the 7 days before now.
      statements: () => {
        const now = new Date();
        return captured.report(source, { start: new Date(now.getTime() - 7 * DAY), end: now });
      },
      concurrent: true,
    },
    {
      name: 'faults',
      description: `faults of a user with ${dataset.ownedSourceIds.length} sources`,
      method: 'GET',
      path: '/api/sunsourcemetrics/faults',
      target: owner,
      statements: () => captured.latestOfOwned(dataset.owner.id),
    },
    {
      name: 'batch-latest-50',
      description: `batch latest of ${Math.min(50, dataset.ownedSourceIds.length)} sources`,
      method: 'POST',
      path: '/api/sunsourcemetrics/batch/latest',
      body: dataset.ownedSourceIds.slice(0, 50),
      target: owner,
      statements: () =>
        captured.latestByIdOfOwned(dataset.owner.id, [...new Set(dataset.ownedSourceIds.slice(0, 50))]),
    },
  ];
}

/** One timed HTTP request of the case; its answer summarized (`describe`). */
async function httpOnce(kase: QueryCase, describe = false): Promise<{ ms: number; answer: string }> {
  const result = await httpRequest(kase.target, kase.method, kase.path, kase.body);
  if (result.status !== 200) {
    throw new Error(
      `${kase.name}: ${kase.method} ${kase.path} answered ${result.status}: ${result.body.toString('utf8').slice(0, 300)}`,
    );
  }
  return { ms: result.ms, answer: describe ? describeBody(result.body) : '' };
}

/**
 * What each floor connection runs first. A PostgreSQL (15) backend whose first statement over
 * the partitioned tables is a measured one, sent unnamed, answers it slower for as long as it
 * lives: batch latest 4.3–5.8 ms against 1.8–2.3 ms, the 60-day summary 3.9–4.1 against
 * 2.4–3.0, whatever ran first otherwise (measured on fresh connections; prepared statements, as
 * the api's, ran the same either way). Left to chance, the floor then depended on which case a
 * connection served first. Read one row of each table first, every floor is the faster one.
 */
const FLOOR_CONNECTION_SETUP = `SELECT (SELECT ts FROM telemetry ORDER BY ts DESC LIMIT 1),
                                      (SELECT hour FROM telemetry_hourly ORDER BY hour DESC LIMIT 1)`;

/** HTTP p50 over floor p50, as the target reads it (one round's, or all rounds'). */
const ratioOf = (httpP50: number, floorP50: number) => round(httpP50 / floorP50, 2);

/** One run of the statements straight through pg: concurrently on their own connections, or in turn on one. */
async function floorOnce(
  clients: PoolClient[],
  statements: Statement[],
  concurrent: boolean,
): Promise<number> {
  const started = performance.now();
  if (concurrent)
    await Promise.all(statements.map((statement, i) => clients[i].query(statement.sql, statement.params)));
  else for (const statement of statements) await clients[0].query(statement.sql, statement.params);
  return performance.now() - started;
}

async function explain(
  client: PoolClient,
  statements: Statement[],
  concurrent: boolean,
): Promise<{ serverMs: number; plans: string[] }> {
  const plans: string[] = [];
  let serverMs = 0;
  for (const statement of statements) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${statement.sql}`,
      statement.params,
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    plans.push(plan);
    const execution = Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN);
    serverMs = concurrent ? Math.max(serverMs, execution) : serverMs + execution;
  }
  return { serverMs: round(serverMs, 2), plans };
}

/** What one case gathers over the rounds. */
interface CaseSamples {
  kase: QueryCase;
  statements: Statement[];
  answer: string;
  warmupRequests: number;
  firstRequests: number[];
  http: number[];
  floor: number[];
  rounds: RoundFigures[];
}

/**
 * Each case in turn, in rounds (`--rounds`): warm-up, then HTTP requests and floor runs
 * alternately, so that both see the same machine (this one may be shared: what other processes
 * used meanwhile is reported as `other CPU`). The figures are those of all rounds' requests
 * together: the speed of this virtual machine drifts over minutes, and a case measured in one
 * stretch of a few seconds takes whatever spell it falls in, which then weighs on the request
 * with more processes to wake (the api's) more than on its floor. The rounds' own figures are
 * reported beside. The first warm-up is long because a server runs warm: V8 compiles a
 * request's path (Node's HTTP, Express, Nest, the session, pg) with its optimizing compiler only
 * after some thousands of requests, and until then a short one costs up to twice as much (latest
 * point: 2.1 ms over the api's first 300 requests, 1.1 ms after 2,500). Later rounds warm up
 * briefly, for the database's caches. The floor gets as many runs.
 */
async function queriesPhase(
  dataset: Dataset,
  owner: HttpTarget,
  pool: Pool,
  meter: UsageMeter,
): Promise<QueryResult[]> {
  const cases: CaseSamples[] = [];
  for (const kase of queryCases(dataset, owner)) {
    if (options.only && !options.only.has(kase.name) && !kase.reference) continue;
    cases.push({
      kase,
      statements: kase.statements ? await kase.statements() : [],
      answer: (await httpOnce(kase, true)).answer,
      warmupRequests: 0,
      firstRequests: [],
      http: [],
      floor: [],
      rounds: [],
    });
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const samples of cases) await measureRound(samples, round, pool, meter);
  }
  const results: QueryResult[] = [];
  for (const samples of cases) results.push(await summarizeCase(samples, pool));
  return results;
}

/** Later rounds' warm-up: the database's caches, V8 having compiled the path in the first. */
const REWARM_REQUESTS = 100;

async function measureRound(
  samples: CaseSamples,
  roundIndex: number,
  pool: Pool,
  meter: UsageMeter,
): Promise<void> {
  const { kase, statements } = samples;
  const concurrent = kase.concurrent ?? false;
  const started = performance.now();
  const clients = await Promise.all(statements.map(() => pool.connect()));
  try {
    const warmups = roundIndex === 0 ? options.warmup : Math.min(options.warmup, REWARM_REQUESTS);
    const warmUntil = performance.now() + options.warmupSeconds * 1000;
    let warmup = 0;
    while (warmup < warmups && performance.now() < warmUntil) {
      const { ms } = await httpOnce(kase);
      if (roundIndex === 0 && samples.firstRequests.length < options.requests) samples.firstRequests.push(ms);
      if (statements.length > 0) await floorOnce(clients, statements, concurrent);
      warmup++;
    }
    if (roundIndex === 0) samples.warmupRequests = warmup;
    const usage = meter.begin();
    const http: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < options.requests; i++) {
      http.push((await httpOnce(kase)).ms);
      if (statements.length > 0) floor.push(await floorOnce(clients, statements, concurrent));
    }
    const used = usage.end();
    samples.http.push(...http);
    samples.floor.push(...floor);
    const figures: RoundFigures = {
      httpP50: summarize(http).p50,
      otherCpuPercent: used.otherCpuPercent,
      usage: used,
    };
    if (floor.length > 0) {
      figures.floorP50 = summarize(floor).p50;
      figures.ratio = ratioOf(figures.httpP50, figures.floorP50);
    }
    samples.rounds.push(figures);
    log(
      `${kase.name.padEnd(16)} round ${roundIndex + 1}/${options.rounds}: http p50 ${figures.httpP50} ms` +
        (figures.floorP50 !== undefined ? `, floor p50 ${figures.floorP50} ms, ratio ${figures.ratio}` : '') +
        ` after ${warmup} warm-up; other CPU ${used.otherCpuPercent}% (${round((performance.now() - started) / 1000, 1)} s)`,
    );
  } finally {
    clients.forEach((client) => client.release());
  }
}

/** All rounds' requests together, the report's sequential floor, and the plans. */
async function summarizeCase(samples: CaseSamples, pool: Pool): Promise<QueryResult> {
  const { kase, statements } = samples;
  const concurrent = kase.concurrent ?? false;
  const result: QueryResult = {
    name: kase.name,
    description: kase.description,
    request: `${kase.method} ${kase.path}${kase.body ? ` (body: ${Array.isArray(kase.body) ? `${kase.body.length} ids` : 'json'})` : ''}`,
    answer: samples.answer,
    warmupRequests: samples.warmupRequests,
    firstRequestsP50: samples.firstRequests.length > 0 ? summarize(samples.firstRequests).p50 : undefined,
    http: summarize(samples.http),
    otherCpuPercent: Math.max(...samples.rounds.map((figures) => figures.otherCpuPercent)),
    rounds: samples.rounds,
  };
  if (statements.length > 0) {
    const clients = await Promise.all(statements.map(() => pool.connect()));
    try {
      result.floor = summarize(samples.floor);
      if (concurrent) {
        const sequential: number[] = [];
        for (let i = 0; i < Math.min(options.requests, 20); i++)
          sequential.push(await floorOnce(clients, statements, false));
        result.floorSequentialP50 = summarize(sequential).p50;
      }
      const explained = await explain(clients[0], statements, concurrent);
      result.serverMs = explained.serverMs;
      result.ratio = ratioOf(result.http.p50, result.floor.p50);
      result.pass = result.http.p50 < TARGET_P50_MS && result.ratio <= TARGET_RATIO;
      result.statements = statements.map((statement, i) => ({ ...statement, plan: explained.plans[i] }));
    } finally {
      clients.forEach((client) => client.release());
    }
  }
  log(
    `${kase.name.padEnd(16)} http p50 ${result.http.p50} ms, p99 ${result.http.p99} ms` +
      (result.floor
        ? `; floor p50 ${result.floor.p50} ms (server ${result.serverMs} ms); ratio ${result.ratio}`
        : '') +
      ` [${result.answer}] over ${samples.http.length} requests in ${samples.rounds.length} rounds`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// Exports

interface ExportRun {
  /** Not timed; its memory counts. */
  warmup: boolean;
  seconds: number;
  firstByteMs: number;
  rows: number;
  bytes: number;
  rowsPerSecond: number;
  baselineMiB: number;
  peakMiB: number;
  growthMB: number;
  samples: number;
}

interface ExportResult {
  format: 'csv' | 'xlsx';
  request: string;
  rowsInRange: number;
  rowsCounted: number | undefined;
  countNote: string;
  runs: ExportRun[];
  /** Medians over the runs; growth is the largest. */
  seconds: number;
  rowsPerSecond: number;
  maxGrowthMB: number;
  floor?: { seconds: number; rowsPerSecond: number; note: string };
  passSpeed: boolean;
  passMemory: boolean;
  error?: string;
}

async function exportFloor(
  pool: Pool,
  dataset: Dataset,
  from: Date,
  to: Date,
): Promise<{ seconds: number; rowsPerSecond: number; note: string } | undefined> {
  const captured = await captureExportStatement(options.appRoot, {
    sunSourceId: dataset.fineSourceId,
    from,
    to,
    limit: 500_000,
  });
  if (!captured) return undefined;
  const once = async () => {
    const client = await pool.connect();
    try {
      const started = performance.now();
      for (const setup of captured.setup) await client.query(setup);
      let rows = 0;
      const stream = client.query(
        new QueryStream(captured.rows.sql, captured.rows.params, { batchSize: 2000, rowMode: 'array' }),
      );
      for await (const row of stream) if (row) rows += 1;
      await client.query('COMMIT');
      return { seconds: (performance.now() - started) / 1000, rows };
    } finally {
      client.release();
    }
  };
  await once();
  const runs = [];
  for (let i = 0; i < options.exportRuns; i++) runs.push(await once());
  const seconds = summarize(runs.map((run) => run.seconds)).p50;
  return {
    seconds: round(seconds, 2),
    rowsPerSecond: Math.round(runs[0].rows / seconds),
    note: `the export's cursor SELECT (${runs[0].rows} rows, batches of 2000, rowMode array) read through pg-query-stream, nothing encoded`,
  };
}

async function countXlsxRows(file: string): Promise<number> {
  // exceljs is a dependency of the api; its streaming reader keeps memory flat here too.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ExcelJS = require('exceljs') as typeof import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    worksheets: 'emit',
    sharedStrings: 'ignore',
    styles: 'ignore',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let rows = 0;
  for await (const worksheet of reader) {
    const sheet = worksheet as unknown as AsyncIterable<unknown> & { id: number };
    let count = 0;
    for await (const row of sheet) if (row) count += 1;
    if (sheet.id === 1) rows = count - 1; // the header row
  }
  return rows;
}

async function exportsPhase(
  dataset: Dataset,
  other: HttpTarget,
  apiPid: number,
  pool: Pool,
): Promise<ExportResult[]> {
  const to = dataset.end;
  const from = new Date(to.getTime() - EXPORT_RANGE_DAYS * DAY);
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 AND ts < $3',
    [dataset.fineSourceId, from, to],
  );
  const rowsInRange = rows[0].n;
  log(
    `exports: ${rowsInRange.toLocaleString('en')} rows of the 10-second source in [${iso(from)}, ${iso(to)})`,
  );
  const floor = await exportFloor(pool, dataset, from, to);
  if (floor)
    log(`export floor (SQL only): ${floor.seconds} s = ${floor.rowsPerSecond.toLocaleString('en')} rows/s`);
  const results: ExportResult[] = [];
  for (const format of ['csv', 'xlsx'] as const) {
    const path = `/api/export/${dataset.fineSourceId}/${format === 'csv' ? 'csv' : 'excel'}?startDate=${iso(from)}&endDate=${iso(to)}`;
    const file = join(resources.dataDir, `export.${format}`);
    const result: ExportResult = {
      format,
      request: `GET ${path}`,
      rowsInRange,
      rowsCounted: undefined,
      countNote: '',
      runs: [],
      seconds: Number.NaN,
      rowsPerSecond: Number.NaN,
      maxGrowthMB: Number.NaN,
      floor,
      passSpeed: false,
      passMemory: false,
    };
    results.push(result);
    try {
      let last: DownloadResult | undefined;
      // Warm-up runs are measured too but not timed: the first export is the worst case for
      // memory (the heap grows once and stays), so their RSS growth counts.
      for (let i = 0; i < options.exportWarmup + options.exportRuns; i++) {
        const warmup = i < options.exportWarmup;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // let the api settle (GC, sockets)
        const measured = await withPeakRss(apiPid, 50, () =>
          download(other, path, format === 'xlsx' ? file : undefined),
        );
        last = measured.result;
        if (last.status !== 200) throw new Error(`answered ${last.status}: ${last.errorText ?? ''}`);
        const rowsSent = format === 'csv' ? last.lineFeeds - 1 : rowsInRange;
        const peak = Math.max(measured.sampledPeakMiB, measured.hwmPeakMiB ?? 0);
        const run: ExportRun = {
          warmup,
          seconds: round(last.ms / 1000, 3),
          firstByteMs: round(last.firstByteMs, 1),
          rows: rowsSent,
          bytes: last.bytes,
          rowsPerSecond: Math.round(rowsSent / (last.ms / 1000)),
          baselineMiB: round(measured.baselineMiB, 1),
          peakMiB: round(peak, 1),
          growthMB: MB(peak - measured.baselineMiB),
          samples: measured.samples,
        };
        result.runs.push(run);
        log(
          `${format.padEnd(4)} ${warmup ? 'warm-up' : `run ${i - options.exportWarmup + 1}`}: ${run.rows.toLocaleString('en')} rows, ` +
            `${round(run.bytes / 1e6, 1)} MB in ${run.seconds} s = ${run.rowsPerSecond.toLocaleString('en')} rows/s ` +
            `(first byte ${run.firstByteMs} ms); api RSS ${run.baselineMiB} → ${run.peakMiB} MiB (+${run.growthMB} MB)`,
        );
      }
      if (format === 'csv') {
        result.rowsCounted = last ? last.lineFeeds - 1 : undefined;
        result.countNote = 'line feeds of the streamed file minus the header';
      } else {
        result.rowsCounted = await countXlsxRows(file);
        result.countNote = `rows of sheet Data (exceljs streaming reader, after the timed runs) minus the header; file ${round(statSync(file).size / 1e6, 1)} MB`;
      }
      const seconds = summarize(result.runs.filter((run) => !run.warmup).map((run) => run.seconds)).p50;
      result.seconds = seconds;
      result.rowsPerSecond = Math.round(rowsInRange / seconds);
      result.maxGrowthMB = Math.max(...result.runs.map((run) => run.growthMB));
      result.passSpeed =
        result.rowsCounted === rowsInRange &&
        result.rowsPerSecond >= (format === 'csv' ? TARGET_CSV_ROWS_PER_SECOND : TARGET_XLSX_ROWS_PER_SECOND);
      result.passMemory = result.maxGrowthMB < TARGET_RSS_GROWTH_MB;
    } catch (error) {
      result.error = String(error);
      log(`${format} export failed: ${result.error}`);
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Report

interface Machine {
  cpu: string;
  memory: string;
  node: string;
  postgresql: string;
  postgresSettings: string;
  date: string;
}

function printReport(report: {
  machine: Machine;
  dataset: Record<string, unknown>;
  load?: LoadStats;
  queries: QueryResult[];
  exports: ExportResult[];
  phases: Record<string, number>;
  busyBefore: number | undefined;
}): string[] {
  const out: string[] = [];
  const line = (text = '') => out.push(text);
  line();
  line('══════════════════════════════════════════════════════════════════════════════════════════════');
  line(' Query benchmark (npm run bench:query)');
  line('══════════════════════════════════════════════════════════════════════════════════════════════');
  for (const [key, value] of Object.entries(report.machine)) line(` ${key.padEnd(12)} ${value}`);
  for (const [key, value] of Object.entries(report.dataset)) line(` ${key.padEnd(12)} ${String(value)}`);
  if (report.load) {
    const l = report.load;
    line(
      ` load         ${(l.coarseRows + l.fineRows).toLocaleString('en')} rows (${l.coarseRows.toLocaleString('en')} at 5 min + ${l.fineRows.toLocaleString('en')} at 10 s) ` +
        `in ${l.insertSeconds} s = ${l.rowsPerSecond.toLocaleString('en')} rows/s; telemetry_hourly ${l.rollupRows.toLocaleString('en')} rows in ${l.rollupSeconds} s; ` +
        `VACUUM ANALYZE ${l.vacuumSeconds} s, CHECKPOINT ${l.checkpointSeconds} s`,
    );
    line(
      ` storage      ${l.partitions} partitions, table ${round(l.tableBytes / 2 ** 30, 2)} GiB, indexes ${round(l.indexBytes / 2 ** 30, 2)} GiB`,
    );
  }
  if (report.busyBefore !== undefined)
    line(` idle check   machine ${report.busyBefore}% busy just before measuring`);
  if (report.queries.length > 0) {
    line();
    line(
      `── Queries: ${options.rounds} rounds of ${options.requests} sequential requests each, after ${options.warmup} warm-up (or ${options.warmupSeconds} s) ` +
        `in the first and ${REWARM_REQUESTS} in the others, one keep-alive connection, alternating with as many floor runs (the same SQL through pg) ───`,
    );
    const header = [
      'query',
      'answer',
      'HTTP p50',
      'HTTP p99',
      'first p50',
      'floor p50',
      'server',
      'ratio',
      'rounds',
      'other CPU',
      'result',
    ];
    const rows = report.queries.map((q) => [
      q.name,
      q.answer,
      `${q.http.p50} ms`,
      `${q.http.p99} ms`,
      q.firstRequestsP50 !== undefined ? `${q.firstRequestsP50} ms` : '',
      q.floor ? `${q.floor.p50} ms` : '',
      q.serverMs !== undefined ? `${q.serverMs} ms` : '',
      q.ratio !== undefined ? `${q.ratio}×` : '',
      q.rounds.map((figures) => figures.ratio ?? figures.httpP50).join(' '),
      `${q.otherCpuPercent}%`,
      q.pass === undefined ? 'reference' : q.pass ? 'PASS' : 'FAIL',
    ]);
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const format = (row: string[]) =>
      ' ' + row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
    line(format(header));
    rows.forEach((row) => line(format(row)));
    line(
      ` PASS = HTTP p50 < ${TARGET_P50_MS} ms and HTTP p50 ≤ ${TARGET_RATIO}× floor p50, over all rounds' requests. ` +
        `rounds = each round's own ratio (references: HTTP p50 in ms). first p50 = the first ${options.requests} warm-up ` +
        `requests, before V8 has optimized their path (not a target). server = EXPLAIN ANALYZE execution time ` +
        `(report: the slowest of its 4 concurrent statements; their sequential floor is ${
          report.queries.find((q) => q.name === 'report-week')?.floorSequentialP50 ?? 'n/a'
        } ms).`,
    );
    line(
      ` other CPU = CPU used meanwhile by processes other than the api, PostgreSQL, Redis and this bench (% of one core, the most of any round): ` +
        `above a few % the machine was shared and the figures are worse than they should be.`,
    );
  }
  if (report.exports.length > 0) {
    line();
    line(
      `── Exports of the 10-second source, ${EXPORT_RANGE_DAYS} days: ${options.exportRuns} runs after ${options.exportWarmup} warm-up ───`,
    );
    for (const e of report.exports) {
      if (e.error) {
        line(` ${e.format.padEnd(5)} FAILED: ${e.error}`);
        continue;
      }
      line(
        ` ${e.format.padEnd(5)} ${e.rowsInRange.toLocaleString('en')} rows (${e.rowsCounted?.toLocaleString('en')} counted: ${e.countNote}); ` +
          `median ${e.seconds} s = ${e.rowsPerSecond.toLocaleString('en')} rows/s; ` +
          `runs ${e.runs.map((run) => `${run.seconds} s${run.warmup ? ' (warm-up)' : ''}`).join(', ')}; first byte ${e.runs.map((run) => `${run.firstByteMs} ms`).join(', ')}`,
      );
      line(
        `       api RSS growth ${e.runs.map((run) => `+${run.growthMB} MB (${run.baselineMiB} → ${run.peakMiB} MiB${run.warmup ? ', warm-up' : ''})`).join(', ')}; ` +
          `${round(e.runs[0]?.bytes / 1e6, 1)} MB per file`,
      );
    }
    const floor = report.exports[0]?.floor;
    if (floor)
      line(` floor: ${floor.seconds} s = ${floor.rowsPerSecond.toLocaleString('en')} rows/s (${floor.note})`);
  }
  line();
  line('── Targets ─────────────────────────────────────────────────────────────────────');
  const checks: Array<{ met: boolean; text: string }> = [];
  for (const q of report.queries) {
    if (q.pass === undefined) continue;
    checks.push({
      met: q.pass,
      text: `${q.name}: p50 ${q.http.p50} ms (< ${TARGET_P50_MS}: ${q.http.p50 < TARGET_P50_MS ? 'yes' : 'NO'}), ${q.ratio}× floor ${q.floor?.p50} ms (≤ ${TARGET_RATIO}: ${q.ratio! <= TARGET_RATIO ? 'yes' : 'NO'})`,
    });
  }
  for (const e of report.exports) {
    const target = e.format === 'csv' ? TARGET_CSV_ROWS_PER_SECOND : TARGET_XLSX_ROWS_PER_SECOND;
    checks.push({
      met: e.passSpeed,
      text: e.error
        ? `${e.format} ≥ ${target.toLocaleString('en')} rows/s: export failed`
        : `${e.format} ≥ ${target.toLocaleString('en')} rows/s: ${e.rowsPerSecond.toLocaleString('en')} rows/s${e.rowsCounted === e.rowsInRange ? '' : ` (ROW COUNT ${e.rowsCounted} ≠ ${e.rowsInRange})`}`,
    });
    checks.push({
      met: e.passMemory,
      text: e.error
        ? `${e.format} RSS growth < ${TARGET_RSS_GROWTH_MB} MB: export failed`
        : `${e.format} RSS growth < ${TARGET_RSS_GROWTH_MB} MB: +${e.maxGrowthMB} MB at most`,
    });
  }
  for (const check of checks) line(` ${check.met ? 'PASS' : 'MISS'}  ${check.text}`);
  const missed = checks.filter((check) => !check.met).length;
  line();
  line(missed === 0 ? ' All targets met.' : ` ${missed} of ${checks.length} targets missed.`);
  line(
    ` phases: ${Object.entries(report.phases)
      .map(([name, seconds]) => `${name} ${seconds} s`)
      .join(', ')}`,
  );
  console.log(out.join('\n'));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Main

async function machine(): Promise<Machine> {
  return withServer(async (client) => {
    const version = (await client.query<{ version: string }>('SELECT version()')).rows[0].version;
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM pg_settings
        WHERE name IN ('shared_buffers', 'work_mem', 'effective_cache_size', 'jit', 'max_parallel_workers_per_gather', 'random_page_cost')
        ORDER BY name`,
    );
    return {
      cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
      memory: `${round(totalmem() / 2 ** 30, 1)} GiB`,
      node: process.version,
      postgresql: version,
      postgresSettings: settings.rows.map((row) => `${row.name}=${row.setting}`).join(', '),
      date: new Date().toISOString(),
    };
  });
}

async function main(): Promise<void> {
  const host = await machine();
  log(`${host.cpu}, ${host.memory}, Node ${host.node}, ${host.postgresql.split(' on ')[0]}`);
  if (options.build) {
    await phase('build', async () => {
      log('building (npm run build)…');
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    });
  }

  const secretsKey = randomBytes(32).toString('hex');
  const url = databaseUrl(resources.databaseName);
  let dataset: Dataset;
  let load: LoadStats | undefined;
  if (options.reuse) {
    dataset = await findDataset(options.reuse);
    log(`reusing database ${resources.databaseName}: data ${iso(dataset.start)} … ${iso(dataset.end)}`);
  } else {
    log(`database ${resources.databaseName}`);
    await phase('migrate', async () => {
      execFileSync(process.execPath, [join(options.appRoot, 'dist/libs/database/src/migrate-cli.js')], {
        cwd: options.appRoot,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          DATABASE_URL: url,
          DATA_DIR: resources.dataDir,
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    });
    const shape = {
      sources: options.sources,
      owned: options.owned,
      days: options.days,
      fineDays: options.fineDays,
    };
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      dataset = await seedOwners(
        client,
        new SecretBox({ secretsKey: Buffer.from(secretsKey, 'hex') }),
        shape,
        dataEnd(),
      );
    } finally {
      await client.end();
    }
    load = await phase('load', () =>
      loadTelemetry(url, dataset, { connections: options.loadConnections, log }),
    );
    log(
      `loaded ${(load.coarseRows + load.fineRows).toLocaleString('en')} rows in ${load.insertSeconds} s ` +
        `(${load.rowsPerSecond.toLocaleString('en')} rows/s), telemetry_hourly ${load.rollupSeconds} s, ` +
        `VACUUM ANALYZE ${load.vacuumSeconds} s, CHECKPOINT ${load.checkpointSeconds} s`,
    );
  }

  const apiPort = await freePort();
  const api = startNode(
    'api',
    [...resources.profileArgs('api', options.profileDir), 'dist/apps/api/src/main.js'],
    {
      cwd: options.appRoot,
      env: resources.appEnvironment(apiPort, secretsKey),
    },
  );
  resources.children.push(api);
  await phase('api start', () =>
    waitFor(
      async () => isRunning(api) && (await healthy(apiPort)),
      'the api to answer its health check',
      90_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${api.tail.slice(-20).join('\n')}`);
    }),
  );
  const owner: HttpTarget = { port: apiPort, cookie: await login(apiPort, dataset.owner.email) };
  const other: HttpTarget = { port: apiPort, cookie: await login(apiPort, dataset.other.email) };
  log(`api :${apiPort} (pid ${api.pid}) ready; both users logged in`);

  let busyBefore: number | undefined;
  if (options.quietWaitSeconds > 0) {
    busyBefore = await waitForQuiet(options.quietWaitSeconds * 1000);
    if (busyBefore >= 15)
      log(`warning: the machine is ${busyBefore}% busy with other work; figures will be worse`);
  }

  const pool = new Pool({ connectionString: url, max: 6, application_name: 'bench-floor' });
  pool.on('connect', (client) => {
    client
      .query(FLOOR_CONNECTION_SETUP)
      .catch((error: unknown) => log(`floor connection setup: ${String(error)}`));
  });
  const meter = new UsageMeter();
  meter.watchPid('api', api.pid);
  meter.watchPid('bench', process.pid);
  meter.watchComm('postgres', 'postgres');
  meter.watchComm('redis', 'redis-server');
  let queries: QueryResult[] = [];
  let exports: ExportResult[] = [];
  try {
    if (options.phases.has('queries'))
      queries = await phase('queries', () => queriesPhase(dataset, owner, pool, meter));
    if (options.phases.has('exports'))
      exports = await phase('exports', () => exportsPhase(dataset, other, api.pid, pool));
  } finally {
    await pool.end();
  }

  const coarseRows = load?.coarseRows;
  const report = {
    machine: host,
    dataset: {
      database: resources.databaseName,
      sources:
        `${dataset.ownedSourceIds.length + dataset.otherSourceIds.length} at 5 min over ${round((dataset.end.getTime() - dataset.start.getTime()) / DAY)} days` +
        `${coarseRows ? ` (${coarseRows.toLocaleString('en')} rows)` : ''}, ${dataset.ownedSourceIds.length} owned by one user; ` +
        `1 at 10 s over ${round((dataset.end.getTime() - dataset.fineStart.getTime()) / DAY)} days`,
      range: `${iso(dataset.start)} … ${iso(dataset.end)} (exclusive)`,
      steps: `${COARSE_STEP_MS / 60_000} min and ${FINE_STEP_MS / 1000} s`,
    },
    load,
    queries,
    exports,
    phases: phaseSeconds,
    busyBefore,
  };
  const text = printReport(report);
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const file = join(__dirname, 'results', `query-${resources.stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ ...report, options: { ...options, phases: [...options.phases], only: options.only && [...options.only] }, apiProblems: Object.fromEntries(api.problems), text }, null, 2)}\n`,
  );
  log(`results written to ${file}`);
}

void resources.execute(main, WATCHDOG_MS);
