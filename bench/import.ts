import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { ImportReport } from '@solar/telemetry';
import { createRedisPrefix, databaseUrl, testConfig, withServer } from '@solar/testing';
import { ImportCliModule } from '../apps/scheduler/src/cli/import-cli.module';
import { runImportCommand } from '../apps/scheduler/src/cli/import-command';

/**
 * `npm run bench:import`: the import benchmark. Writes a CSV of N rows (default 5 million,
 * 10 s apart from 2024-01-01, eight columns) to a temporary file, then imports it into a database
 * of its own through the command line's path (`runImportCommand`: the same importer, ingestion
 * path, windows and writer as the HTTP route's job), in this process, and prints rows per second
 * and the growth of this process's resident set over the import (sampled every 100 ms against
 * the figure just before it), and writes them to bench/results/import-<date>.json. The database,
 * the Redis keys and the file are removed afterwards.
 */

const TARGET_RSS_GROWTH_MB = 100;
const STEP_MS = 10_000;
const START = Date.UTC(2024, 0, 1);

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '5000000' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(`npm run bench:import -- [options]
  --rows N   rows in the generated file (5000000)
  --keep     keep the database (prints its name)`);
  process.exit(0);
}
const rows = Number(flags.rows);
if (!Number.isInteger(rows) || rows <= 0)
  throw new Error(`--rows must be a positive integer, not ${flags.rows}`);

const MiB = 2 ** 20;
const round = (value: number, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

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

async function writeCsv(file: string): Promise<number> {
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
  return (await stat(file)).size;
}

async function main(): Promise<void> {
  const postgres = await withServer(
    async (client) => (await client.query('SHOW server_version')).rows[0].server_version,
  );
  const machine = `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${round(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}, PostgreSQL ${postgres}`;
  log(machine);
  const file = join(tmpdir(), `solar-bench-import-${process.pid}.csv`);
  const database = `solar_bench_import_${Date.now()}`;
  const redis = createRedisPrefix();
  const config = testConfig({
    DATABASE_URL: databaseUrl(database),
    REDIS_KEY_PREFIX: redis.prefix,
    LOG_LEVEL: 'warn',
  });
  let generated = 0;
  try {
    const writeStarted = Date.now();
    const bytes = await writeCsv(file);
    generated = (Date.now() - writeStarted) / 1000;
    log(`wrote ${rows} rows, ${round(bytes / MiB)} MiB, in ${round(generated, 1)} s`);

    const app = await NestFactory.createApplicationContext(ImportCliModule.forRoot(config), {
      logger: ['warn', 'error'],
    });
    const db = new Client({ connectionString: config.databaseUrl });
    await db.connect();
    try {
      const userId = randomUUID();
      const sourceId = randomUUID();
      await db.query(
        `INSERT INTO users (id, email, password_hash, roles, email_verified) VALUES ($1, $2, 'x', ARRAY['User'], true)`,
        [userId, `${userId}@example.com`],
      );
      await db.query(
        `INSERT INTO sun_sources (id, user_id, name, connection_type, is_active, webhook_secret_encrypted)
         VALUES ($1, $2, 'Imported', 'Webhook', true, 'sealed')`,
        [sourceId, userId],
      );

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
      let report: ImportReport | undefined;
      const out = new Writable({
        write(chunk: Buffer, _encoding, done) {
          report = JSON.parse(chunk.toString('utf8')) as ImportReport;
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
      const started = Date.now();
      const code = await runImportCommand(app, sourceId, file, undefined, { out, progress });
      const seconds = (Date.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      if (code !== 0 || !report) throw new Error(`import failed (exit code ${code})`);
      // What stays alive: a full collection after the import, against the one before it.
      global.gc?.();
      const heapAfter = process.memoryUsage().heapUsed;

      const stored = (
        await db.query('SELECT count(*)::int AS n FROM telemetry WHERE sun_source_id = $1', [sourceId])
      ).rows[0].n;
      const rolledUp = (
        await db.query(
          'SELECT coalesce(sum(sample_count), 0)::int AS n FROM telemetry_hourly WHERE sun_source_id = $1',
          [sourceId],
        )
      ).rows[0].n;
      const growth = (peak - before) / MiB;
      // Flat means the second half of the import needs no more than the first tenth did.
      const peakOf = (part: number[]) => part.reduce((highest, rss) => Math.max(highest, rss), before);
      const firstTenthPeak = peakOf(samples.slice(0, Math.ceil(samples.length / 10)));
      const secondHalfPeak = peakOf(samples.slice(Math.floor(samples.length / 2)));
      const figures = {
        machine,
        nodeFlags: process.execArgv.filter((flag) => flag !== '--require' && !flag.includes('register')),
        rows,
        fileMiB: round(bytes / MiB, 1),
        report: { ...report, rejections: report.rejections.length },
        storedRows: stored,
        rolledUp,
        seconds: round(seconds, 1),
        rowsPerSecond: round(report.rowsRead / seconds),
        rssBeforeMiB: round(before / MiB),
        rssPeakMiB: round(peak / MiB),
        rssGrowthMiB: round(growth, 1),
        rssPeakFirstTenthMiB: round(firstTenthPeak / MiB),
        rssPeakSecondHalfMiB: round(secondHalfPeak / MiB),
        liveHeapBeforeMiB: round(heapBefore / MiB, 1),
        liveHeapAfterMiB: round(heapAfter / MiB, 1),
      };
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      const results = join(
        __dirname,
        'results',
        `import-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      );
      writeFileSync(results, `${JSON.stringify(figures, null, 2)}\n`);
      console.log(
        [
          '',
          `Import benchmark (${machine})`,
          ` file          ${rows} rows, ${round(bytes / MiB)} MiB (generated in ${round(generated, 1)} s)`,
          ` report        ${JSON.stringify({ ...report, rejections: report.rejections.length })}`,
          ` stored rows   ${stored} in telemetry, ${rolledUp} counted in telemetry_hourly`,
          ` time          ${round(seconds, 1)} s`,
          ` rows/s        ${round(report.rowsRead / seconds)}`,
          ` node flags    ${process.execArgv.filter((flag) => flag !== '--require' && !flag.includes('register')).join(' ') || 'none'}`,
          ` RSS           ${round(before / MiB)} MiB before, ${round(peak / MiB)} MiB peak: growth ${round(growth, 1)} MiB`,
          ` RSS by time   peak ${round(firstTenthPeak / MiB)} MiB in the first tenth of the import, ${round(secondHalfPeak / MiB)} MiB in the second half`,
          ` live heap     ${round(heapBefore / MiB, 1)} MiB before, ${round(heapAfter / MiB, 1)} MiB after (full collections)`,
          ` ${growth < TARGET_RSS_GROWTH_MB ? 'PASS' : 'MISS'}  RSS growth < ${TARGET_RSS_GROWTH_MB} MB`,
          ` ${stored === rows && rolledUp === rows ? 'PASS' : 'MISS'}  every row stored and rolled up`,
          ` written to ${results}`,
        ].join('\n'),
      );
    } finally {
      await db.end();
      await app.close();
    }
  } finally {
    await rm(file, { force: true });
    await redis.cleanup();
    if (flags.keep) log(`kept database ${database}`);
    else await withServer((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
