import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '@solar/config';
import { SecretBox } from '@solar/core';
import { migrate } from '@solar/database';
import { ImportReport } from '@solar/telemetry-import';
import { databaseUrl, startNode, waitFor, withServer } from '@solar/testing';
import { ImportCliModule } from '../apps/scheduler/src/cli/import-cli.module';
import { runImportCommand } from '../apps/scheduler/src/cli/import-command';
import { PhaseUsage, round, UsageMeter, waitForQuiet } from './support/processes';
import { log, RunResources } from './support/run-resources';
import { countStored, insertSources, insertUser } from './support/seed';

/**
 * `npm run bench:import`: the import benchmark. Writes a CSV of N rows (default 5 million,
 * 10 s apart from 2024-01-01, eight columns) to a file, then imports it into a database of its
 * own through the command line's path (`runImportCommand`: the same importer, ingestion path,
 * windows and writer as the HTTP route's job), and prints rows per second, the growth of the
 * importing process's resident set over the import (sampled every 100 ms against the figure
 * after a full collection just before it) and the CPU the import took, and writes them to
 * bench/results/import-<date>.json.
 *
 * Each part runs in a process of its own: the file is written by one (284 MiB of CSV text made
 * in the importing process would be garbage of the benchmark's in the heap the import is
 * measured in), and the import runs in another, started with the V8 options the apps are
 * deployed with (the scheduler's `NODE_OPTIONS` in docker/, whose import job runs this code), so
 * its memory is the deployed process's.
 * This one seeds the database, watches the importing process's CPU and checks what was stored.
 * What the run creates is removed at the end, on failure and on Ctrl-C.
 */

const TARGET_RSS_GROWTH_MB = 100;
const STEP_MS = 10_000;
const START = Date.UTC(2024, 0, 1);
const WATCHDOG_MS = 90 * 60_000;

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '5000000' },
    keep: { type: 'boolean', default: false },
    'quiet-wait': { type: 'string', default: '30' },
    'write-csv': { type: 'string' },
    'measure-import': { type: 'string' },
    'node-options': { type: 'string' },
    source: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(`npm run bench:import -- [options]
  --rows N          rows in the generated file (5000000)
  --quiet-wait S    before the import, wait up to S seconds for the machine to be idle (30)
  --node-options=S  the importing process's NODE_OPTIONS instead of the scheduler's in
                    docker/compose.yaml, for comparisons
  --keep            keep the database (prints its name)`);
  process.exit(0);
}
const rows = Number(flags.rows);
if (!Number.isInteger(rows) || rows <= 0)
  throw new Error(`--rows must be a positive integer, not ${flags.rows}`);

const MiB = 2 ** 20;

/** A day's worth of a plausible inverter: power follows the sun, the counter rises through the day. */
function rowAt(index: number): string {
  const ts = START + index * STEP_MS;
  const hourOfDay = (ts / 3_600_000) % 24;
  const sun = Math.max(0, Math.sin(((hourOfDay - 6) / 12) * Math.PI));
  const solar = Math.round(sun * 4800 + (index % 7) * 3);
  const secondsToday = (ts / 1000) % 86_400;
  const produced = round((secondsToday / 86_400) * 22, 3);
  const soc = 30 + ((index >> 6) % 70);
  return `${new Date(ts).toISOString()},${solar},${round(48 + soc / 20, 2)},${soc},${300 + (index % 900)},${round(229 + (index % 5) / 2, 1)},${produced},${sun > 0 ? 'Solar' : 'Battery'}\n`;
}

async function writeCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write(
    'timestamp,solarPower,batteryVoltage,soc,loadPower,gridVoltage,dailyEnergyProduced,operatingMode\n',
  );
  let chunk = '';
  for (let index = 0; index < rows; index++) {
    chunk += rowAt(index);
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** The file, written by a child process (`--write-csv`): see the top of this file. */
async function generateCsv(resources: RunResources, file: string): Promise<void> {
  const writer = startNode(
    'csv writer',
    ['--require', join(__dirname, 'register.js'), __filename, '--write-csv', file, '--rows', String(rows)],
    { cwd: join(__dirname, '..'), env: {} },
  );
  // Stopped with the run's apps should the run end first (Ctrl-C, the watchdog).
  resources.children.push(writer);
  const { code, signal } = await writer.exited;
  if (code !== 0) throw new Error(`the CSV writer failed (${signal ?? code}): ${writer.tail.join('\n')}`);
}

/** What the importing process reports of its import: see `measureImport`. */
interface ImportMeasurement {
  report: ImportReport;
  seconds: number;
  busyBefore?: number;
  nodeFlags: string[];
  rssBefore: number;
  rssPeak: number;
  rssPeakFirstTenth: number;
  rssPeakSecondHalf: number;
  heapBefore: number;
  heapAfter: number;
}

const IMPORT_STARTED = 'import started';
const IMPORT_MEASURED = 'import measured';

/**
 * The importing process (`--measure-import <file> --source <id>`, its configuration in its
 * environment): starts the command line's app, waits for a quiet machine, imports the file and
 * prints its figures as one JSON line. Nothing else runs in it, so its memory is the import's.
 */
async function measureImport(file: string, sourceId: string, quietWaitSeconds: number): Promise<void> {
  const app = await NestFactory.createApplicationContext(ImportCliModule.forRoot(loadConfig(process.env)), {
    logger: ['warn', 'error'],
  });
  try {
    const busyBefore = quietWaitSeconds > 0 ? await waitForQuiet(quietWaitSeconds * 1000) : undefined;
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 100);
    // The command writes the report as JSON, or why it could not import.
    let report: ImportReport | undefined;
    let refusal = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const text = chunk.toString('utf8');
        if (text.startsWith('{')) report = JSON.parse(text) as ImportReport;
        else refusal += text;
        done();
      },
    });
    // The progress line, on a line of its own every 30 s: the benchmark shows the latest.
    let lastLog = Date.now();
    const progress = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (Date.now() - lastLog > 30_000) {
          lastLog = Date.now();
          console.log(chunk.toString('utf8').replace(/^\r/, '').trim());
        }
        done();
      },
    });
    console.log(JSON.stringify({ msg: IMPORT_STARTED }));
    const started = Date.now();
    const code = await runImportCommand(app, sourceId, file, undefined, { out, progress });
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    samples.push(process.memoryUsage().rss);
    if (code !== 0 || !report) throw new Error(`import failed (exit code ${code}) ${refusal.trim()}`);
    // What stays alive: a full collection after the import, against the one before it.
    global.gc?.();
    // Flat means the second half of the import needs no more than the first tenth did.
    const peakOf = (part: number[]) => part.reduce((highest, rss) => Math.max(highest, rss), rssBefore);
    const measured: ImportMeasurement = {
      report,
      seconds,
      busyBefore,
      nodeFlags: [...process.execArgv, ...(process.env.NODE_OPTIONS?.split(/\s+/) ?? [])].filter(
        (flag) => flag.startsWith('--') && flag !== '--require',
      ),
      rssBefore,
      rssPeak: peakOf(samples),
      rssPeakFirstTenth: peakOf(samples.slice(0, Math.ceil(samples.length / 10))),
      rssPeakSecondHalf: peakOf(samples.slice(Math.floor(samples.length / 2))),
      heapBefore,
      heapAfter: process.memoryUsage().heapUsed,
    };
    console.log(JSON.stringify({ msg: IMPORT_MEASURED, ...measured }));
    // The pool's backends stay a moment, so the benchmark reads their CPU before they exit.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } finally {
    await app.close();
  }
}

/**
 * Starts the importing process and waits for its figures, measuring its CPU, PostgreSQL's and
 * Redis's meanwhile.
 */
async function runImportProcess(
  resources: RunResources,
  environment: Record<string, string>,
  file: string,
  sourceId: string,
): Promise<{ measured: ImportMeasurement; used: PhaseUsage }> {
  const importer = startNode(
    'importer',
    [
      '--expose-gc',
      '--require',
      join(__dirname, 'register.js'),
      __filename,
      '--measure-import',
      file,
      '--source',
      sourceId,
      '--quiet-wait',
      flags['quiet-wait'],
    ],
    { cwd: join(__dirname, '..'), env: environment, keep: [IMPORT_STARTED, IMPORT_MEASURED] },
  );
  resources.children.push(importer);
  const meter = new UsageMeter();
  meter.watchPid('importer', importer.pid);
  // The run database's backends: the importer's pool (they live through the import) and this
  // process's idle connection. PostgreSQL's shared work (WAL writer, checkpointer, autovacuum
  // workers that come and go) stays in the machine's other work.
  meter.watchComm('postgres', 'postgres', ` ${resources.databaseName} `);
  meter.watchComm('redis', 'redis-server');
  const measuredLine = () => importer.kept.find((kept) => kept.msg === IMPORT_MEASURED);
  // Its end is a failure unless it printed its figures first.
  const ended = importer.exited.then(async ({ code, signal }) => {
    // Its output may still be on its way when it exits.
    const { stdout } = importer.process;
    if (stdout && !stdout.readableEnded) await once(stdout, 'end');
    if (code !== 0 || !measuredLine())
      throw new Error(`the importing process ended (${signal ?? code}): ${importer.tail.join('\n')}`);
  });
  const line = (msg: string) =>
    Promise.race([
      ended,
      waitFor(() => importer.kept.some((kept) => kept.msg === msg), msg, WATCHDOG_MS, 50),
    ]);
  await line(IMPORT_STARTED);
  const usage = meter.begin();
  const progress = setInterval(() => {
    const latest = importer.tail.at(-1);
    if (latest?.startsWith('[')) log(latest);
  }, 30_000);
  await line(IMPORT_MEASURED).finally(() => clearInterval(progress));
  const used = usage.end();
  await ended;
  return { measured: measuredLine() as unknown as ImportMeasurement, used };
}

/**
 * The benchmark's own connection: ended at the end of `main`, or by the run's cleanup before it
 * drops the database, whose connections PostgreSQL then ends (an error event a connected client
 * would die of).
 */
interface Held {
  db?: Client;
}

async function release(held: Held): Promise<void> {
  const { db } = held;
  held.db = undefined;
  await db?.end().catch(() => undefined);
}

async function main(resources: RunResources, held: Held): Promise<void> {
  const postgres = await withServer(
    async (client) => (await client.query('SHOW server_version')).rows[0].server_version,
  );
  const machine = `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${round(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}, PostgreSQL ${postgres}`;
  log(machine);
  const file = join(resources.dataDir, 'history.csv');
  const writeStarted = Date.now();
  await generateCsv(resources, file);
  const generated = (Date.now() - writeStarted) / 1000;
  const bytes = (await stat(file)).size;
  log(`wrote ${rows} rows, ${round(bytes / MiB)} MiB, in ${round(generated, 1)} s`);

  const secretsKey = randomBytes(32).toString('hex');
  const environment = resources.appEnvironment(0, secretsKey, 'scheduler');
  if (flags['node-options'] !== undefined) environment.NODE_OPTIONS = flags['node-options'];
  await migrate(databaseUrl(resources.databaseName));
  const db = new Client({ connectionString: databaseUrl(resources.databaseName) });
  held.db = db;
  try {
    await db.connect();
    const userId = await insertUser(db);
    const box = new SecretBox({ secretsKey: Buffer.from(secretsKey, 'hex') });
    const [{ id: sourceId }] = await insertSources(db, box, userId, 'Webhook', 1, 'Imported');

    const { measured, used } = await runImportProcess(resources, environment, file, sourceId);
    const { report, seconds, busyBefore, rssBefore: before, rssPeak: peak } = measured;
    if (busyBefore !== undefined && busyBefore >= 15)
      log(`warning: the machine was ${busyBefore}% busy with other work; rows/s will be lower`);

    const stored = await countStored(db, [sourceId]);
    const rolledUp = (
      await db.query(
        'SELECT coalesce(sum(sample_count), 0)::int AS n FROM telemetry_hourly WHERE sun_source_id = $1',
        [sourceId],
      )
    ).rows[0].n;
    const growth = (peak - before) / MiB;
    // The target is in megabytes (10^6 bytes), as bench:query's; the figures are in MiB.
    const growthMB = (peak - before) / 1e6;
    // CPU seconds per 1,000 rows: comparable between runs whatever else the machine was doing.
    const { rowsRead } = report;
    const cpuPer1000 = (name: string) =>
      round(((used.processes[name]?.cpuPercent ?? 0) / 100) * seconds * (1000 / rowsRead), 3);
    const figures = {
      machine,
      nodeFlags: measured.nodeFlags,
      rows,
      fileMiB: round(bytes / MiB, 1),
      report: { ...report, rejections: report.rejections.length },
      storedRows: stored,
      rolledUp,
      seconds: round(seconds, 1),
      rowsPerSecond: round(report.rowsRead / seconds),
      cpuSecondsPer1000Rows: {
        importer: cpuPer1000('importer'),
        postgres: cpuPer1000('postgres'),
        redis: cpuPer1000('redis'),
      },
      machineBusyBeforePercent: busyBefore,
      machineCpuPercent: used.machineCpuPercent,
      otherCpuPercent: used.otherCpuPercent,
      rssBeforeMiB: round(before / MiB),
      rssPeakMiB: round(peak / MiB),
      rssGrowthMiB: round(growth, 1),
      rssGrowthMB: round(growthMB, 1),
      rssPeakFirstTenthMiB: round(measured.rssPeakFirstTenth / MiB),
      rssPeakSecondHalfMiB: round(measured.rssPeakSecondHalf / MiB),
      liveHeapBeforeMiB: round(measured.heapBefore / MiB, 1),
      liveHeapAfterMiB: round(measured.heapAfter / MiB, 1),
    };
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    const results = join(__dirname, 'results', `import-${resources.stamp}.json`);
    writeFileSync(results, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(
      [
        '',
        `Import benchmark (${machine})`,
        ` file          ${rows} rows, ${round(bytes / MiB)} MiB (written in ${round(generated, 1)} s by a child process)`,
        ` report        ${JSON.stringify(figures.report)}`,
        ` stored rows   ${stored} in telemetry, ${rolledUp} counted in telemetry_hourly`,
        ` time          ${round(seconds, 1)} s`,
        ` rows/s        ${figures.rowsPerSecond}`,
        ` CPU           per 1,000 rows: ${figures.cpuSecondsPer1000Rows.importer} s the importing process, ${figures.cpuSecondsPer1000Rows.postgres} s the database's PostgreSQL backends, ${figures.cpuSecondsPer1000Rows.redis} s Redis`,
        ` machine       ${used.machineCpuPercent}% of ${cpus().length} cores busy during the import, ${used.otherCpuPercent}% of a core other work` +
          (busyBefore === undefined ? '' : `; ${busyBefore}% busy just before`),
        ` node flags    ${figures.nodeFlags.join(' ') || 'none'} (the importing process)`,
        ` RSS           ${round(before / MiB)} MiB before, ${round(peak / MiB)} MiB peak: growth ${round(growth, 1)} MiB (${round(growthMB, 1)} MB)`,
        ` RSS by time   peak ${figures.rssPeakFirstTenthMiB} MiB in the first tenth of the import, ${figures.rssPeakSecondHalfMiB} MiB in the second half`,
        ` live heap     ${figures.liveHeapBeforeMiB} MiB before, ${figures.liveHeapAfterMiB} MiB after (full collections)`,
        ` ${growthMB < TARGET_RSS_GROWTH_MB ? 'PASS' : 'MISS'}  RSS growth < ${TARGET_RSS_GROWTH_MB} MB`,
        ` ${stored === rows && rolledUp === rows ? 'PASS' : 'MISS'}  every row stored and rolled up`,
        ` written to ${results}`,
      ].join('\n'),
    );
  } finally {
    await release(held);
  }
}

const exitWith = (work: Promise<void>) =>
  work.then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );

if (flags['write-csv']) {
  void exitWith(writeCsv(flags['write-csv']));
} else if (flags['measure-import']) {
  void exitWith(measureImport(flags['measure-import'], flags.source ?? '', Number(flags['quiet-wait'])));
} else {
  const held: Held = {};
  const resources = new RunResources({
    label: 'import',
    keepDatabase: flags.keep,
    release: () => release(held),
  });
  void resources.execute(() => main(resources, held), WATCHDOG_MS);
}
