import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
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
import { ImportReport } from '@solar/telemetry';
import { databaseUrl, startNode, withServer } from '@solar/testing';
import { ImportCliModule } from '../apps/scheduler/src/cli/import-cli.module';
import { runImportCommand } from '../apps/scheduler/src/cli/import-command';
import { round, UsageMeter, waitForQuiet } from './support/processes';
import { log, RunResources } from './support/run-resources';
import { countStored, insertSources, insertUser } from './support/seed';

/**
 * `npm run bench:import`: the import benchmark. Writes a CSV of N rows (default 5 million,
 * 10 s apart from 2024-01-01, eight columns) to a file, then imports it into a database of its
 * own through the command line's path (`runImportCommand`: the same importer, ingestion path,
 * windows and writer as the HTTP route's job), in this process, and prints rows per second, the
 * growth of this process's resident set over the import (sampled every 100 ms against the figure
 * after a full collection just before it) and the CPU the import took, and writes them to
 * bench/results/import-<date>.json. The file is written by a child process, so that this one
 * holds nothing but the app when the import starts: 284 MiB of CSV text made here would be
 * garbage of the benchmark's in the heap the import is measured in. What the run creates is
 * removed at the end, on failure and on Ctrl-C.
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
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(`npm run bench:import -- [options]
  --rows N          rows in the generated file (5000000)
  --quiet-wait S    before the import, wait up to S seconds for the machine to be idle (30)
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

/**
 * What the benchmark holds itself: let go of at the end of `main`, or by the run's cleanup before
 * it drops the database, whose connections PostgreSQL then ends (an error event a connected
 * client would die of).
 */
interface Held {
  app?: INestApplicationContext;
  db?: Client;
}

async function release(held: Held): Promise<void> {
  const { app, db } = held;
  held.app = undefined;
  held.db = undefined;
  await db?.end().catch(() => undefined);
  await app?.close().catch(() => undefined);
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
  const config = loadConfig(resources.appEnvironment(0, secretsKey));
  const app = await NestFactory.createApplicationContext(ImportCliModule.forRoot(config), {
    logger: ['warn', 'error'],
  });
  held.app = app;
  const db = new Client({ connectionString: databaseUrl(resources.databaseName) });
  held.db = db;
  try {
    await db.connect();
    const userId = await insertUser(db);
    const box = new SecretBox({ secretsKey: Buffer.from(secretsKey, 'hex') });
    const [{ id: sourceId }] = await insertSources(db, box, userId, 'Webhook', 1, 'Imported');

    const quietWait = Number(flags['quiet-wait']);
    const busyBefore = quietWait > 0 ? await waitForQuiet(quietWait * 1000) : undefined;
    if (busyBefore !== undefined && busyBefore >= 15)
      log(`warning: the machine is ${busyBefore}% busy with other work; rows/s will be lower`);
    const meter = new UsageMeter();
    // PostgreSQL is left out: its backends come and go with the pool, and the CPU of one that
    // has exited can no longer be read.
    meter.watchPid('bench', process.pid);
    meter.watchComm('redis', 'redis-server');

    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const before = process.memoryUsage().rss;
    let peak = before;
    const samples: number[] = [];
    const sampler = setInterval(() => {
      const rss = process.memoryUsage().rss;
      samples.push(rss);
      peak = Math.max(peak, rss);
    }, 100);
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
    let lastLog = Date.now();
    const progress = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (Date.now() - lastLog > 30_000) {
          lastLog = Date.now();
          log(chunk.toString('utf8').replace(/^\r/, '').trim());
        }
        done();
      },
    });
    const usage = meter.begin();
    const started = Date.now();
    const code = await runImportCommand(app, sourceId, file, undefined, { out, progress });
    const seconds = (Date.now() - started) / 1000;
    const used = usage.end();
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (code !== 0 || !report) throw new Error(`import failed (exit code ${code}) ${refusal.trim()}`);
    // What stays alive: a full collection after the import, against the one before it.
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;

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
    // Flat means the second half of the import needs no more than the first tenth did.
    const peakOf = (part: number[]) => part.reduce((highest, rss) => Math.max(highest, rss), before);
    const firstTenthPeak = peakOf(samples.slice(0, Math.ceil(samples.length / 10)));
    const secondHalfPeak = peakOf(samples.slice(Math.floor(samples.length / 2)));
    // CPU seconds per 1,000 rows: comparable between runs whatever else the machine was doing.
    const { rowsRead } = report;
    const cpuPer1000 = (name: string) =>
      round(((used.processes[name]?.cpuPercent ?? 0) / 100) * seconds * (1000 / rowsRead), 3);
    const nodeFlags = process.execArgv.filter((flag) => flag !== '--require' && !flag.includes('register'));
    const figures = {
      machine,
      nodeFlags,
      rows,
      fileMiB: round(bytes / MiB, 1),
      report: { ...report, rejections: report.rejections.length },
      storedRows: stored,
      rolledUp,
      seconds: round(seconds, 1),
      rowsPerSecond: round(report.rowsRead / seconds),
      cpuSecondsPer1000Rows: { bench: cpuPer1000('bench'), redis: cpuPer1000('redis') },
      machineBusyBeforePercent: busyBefore,
      machineCpuPercent: used.machineCpuPercent,
      otherCpuPercent: used.otherCpuPercent,
      rssBeforeMiB: round(before / MiB),
      rssPeakMiB: round(peak / MiB),
      rssGrowthMiB: round(growth, 1),
      rssGrowthMB: round(growthMB, 1),
      rssPeakFirstTenthMiB: round(firstTenthPeak / MiB),
      rssPeakSecondHalfMiB: round(secondHalfPeak / MiB),
      liveHeapBeforeMiB: round(heapBefore / MiB, 1),
      liveHeapAfterMiB: round(heapAfter / MiB, 1),
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
        ` CPU           per 1,000 rows: ${figures.cpuSecondsPer1000Rows.bench} s this process, ${figures.cpuSecondsPer1000Rows.redis} s Redis`,
        ` machine       ${used.machineCpuPercent}% of ${cpus().length} cores busy during the import, ${used.otherCpuPercent}% of a core other work` +
          (busyBefore === undefined ? '' : `; ${busyBefore}% busy just before`),
        ` node flags    ${nodeFlags.join(' ') || 'none'}`,
        ` RSS           ${round(before / MiB)} MiB before, ${round(peak / MiB)} MiB peak: growth ${round(growth, 1)} MiB (${round(growthMB, 1)} MB)`,
        ` RSS by time   peak ${round(firstTenthPeak / MiB)} MiB in the first tenth of the import, ${round(secondHalfPeak / MiB)} MiB in the second half`,
        ` live heap     ${round(heapBefore / MiB, 1)} MiB before, ${round(heapAfter / MiB, 1)} MiB after (full collections)`,
        ` ${growthMB < TARGET_RSS_GROWTH_MB ? 'PASS' : 'MISS'}  RSS growth < ${TARGET_RSS_GROWTH_MB} MB`,
        ` ${stored === rows && rolledUp === rows ? 'PASS' : 'MISS'}  every row stored and rolled up`,
        ` written to ${results}`,
      ].join('\n'),
    );
  } finally {
    await release(held);
  }
}

if (flags['write-csv']) {
  writeCsv(flags['write-csv']).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  const held: Held = {};
  const resources = new RunResources({
    label: 'import',
    keepDatabase: flags.keep,
    release: () => release(held),
  });
  void resources.execute(() => main(resources, held), WATCHDOG_MS);
}
