/**
 * `npm run bench:xlsx`: the export's own streaming XLSX writer against exceljs's streaming
 * `WorkbookWriter`, on the same rows and the same workbook (sheet Data with a frozen, bold
 * header and date-time cells; sheet Summary gathered while the rows go by).
 *
 * Each writer runs in a fresh process per round (rounds alternate the order), so one's heap
 * does not carry into the other's figures. Rows are made on the fly from a pool of realistic
 * records with a 10-second clock, and the workbook goes to a sink that counts bytes, so the
 * figure is the writer's own cost: the database and the network are not in it (see
 * `npm run bench:query` for the whole export).
 */
import { spawnSync } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import ExcelJS from 'exceljs';
import {
  EXPORT_HEADER,
  ExportRow,
  NUMERIC_FIELDS,
  readExportNumbers,
  TelemetryExportSummary,
  toExportRow,
} from '@solar/telemetry';
import { NO_READINGS_BEFORE } from '../libs/telemetry/src/energy/energy-increments';
import { writeXlsxExport } from '../libs/telemetry/src/export/xlsx-export-writer';
import { round } from './support/processes';

const WRITERS = ['own', 'exceljs'] as const;
type WriterName = (typeof WRITERS)[number];

interface WriterRun {
  writer: WriterName;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  bytes: number;
  /** Peak RSS during the run minus RSS before it, MB. */
  rssGrowthMb: number;
}

const USAGE = `npm run bench:xlsx -- [options]

  --rows N      rows of sheet Data per workbook (default 285120: 33 days at 10 s)
  --rounds N    rounds; each runs both writers in a fresh process, order alternating (default 3)
  --help        this text

Targets (docs/performance.md): >= 30,000 rows/s and RSS growth < 100 MB for the Excel export.`;

const START = Date.UTC(2026, 9, 1);
const STEP_MS = 10_000;
const POOL_SIZE = 1_000;

/** A pool of records with every numeric field set, as a running hybrid inverter reports them. */
function recordPool(): ExportRow[] {
  const pool: ExportRow[] = [];
  for (let index = 0; index < POOL_SIZE; index++) {
    const phase = index / POOL_SIZE;
    const values = Object.fromEntries(
      NUMERIC_FIELDS.map((field, fieldIndex) => [
        field.name,
        Math.round((100 + 900 * Math.abs(Math.sin(phase * 7 + fieldIndex))) * 100) / 100,
      ]),
    );
    pool.push(
      toExportRow(new Date(START), {
        ...values,
        operatingMode: 'Battery',
        deviceStatus: 'Normal',
        faultCodes: [],
        warningCodes: index % 50 === 0 ? ['W12'] : [],
      }),
    );
  }
  return pool;
}

function exportRows(count: number): Readable {
  const pool = recordPool();
  let produced = 0;
  return new Readable({
    objectMode: true,
    highWaterMark: 256,
    read() {
      while (produced < count) {
        const [, numbers, mode, status, faults, warnings] = pool[produced % POOL_SIZE];
        const row: ExportRow = [START + produced * STEP_MS, numbers, mode, status, faults, warnings];
        produced++;
        if (!this.push(row)) return;
      }
      this.push(null);
    },
  });
}

class CountingSink extends Writable {
  bytes = 0;
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    done();
  }
}

/** The same workbook through exceljs's streaming writer. */
async function writeWithExceljs(rows: Readable, sink: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: sink,
    useStyles: true,
    useSharedStrings: false,
    zip: { zlib: { level: 1 } },
  });
  const data = workbook.addWorksheet('Data', { views: [{ state: 'frozen', ySplit: 1 }] });
  data.columns = EXPORT_HEADER.map((header, index) => ({
    header,
    width: index === 0 ? 24 : Math.max(12, header.length + 2),
  }));
  data.getRow(1).font = { bold: true };
  data.getColumn(1).numFmt = 'yyyy-mm-dd hh:mm:ss.000';
  const summary = new TelemetryExportSummary();
  const values = new Float64Array(NUMERIC_FIELDS.length);
  const texts = new Array<string>(NUMERIC_FIELDS.length);
  for await (const row of rows as AsyncIterable<ExportRow>) {
    readExportNumbers(row[1], values, texts);
    summary.add(row[0], values);
    const cells: (number | string | Date | null)[] = [new Date(row[0])];
    for (let index = 0; index < values.length; index++) {
      cells.push(Number.isFinite(values[index]) ? values[index] : null);
    }
    for (let index = 2; index < row.length; index++) cells.push(row[index] || null);
    data.addRow(cells).commit();
  }
  data.commit();
  const result = summary.result();
  const sheet = workbook.addWorksheet('Summary');
  sheet.addRow(['Records', result.recordCount]).commit();
  sheet.addRow(['Energy produced (kWh)', result.energyProduced]).commit();
  sheet.addRow(['Energy consumed (kWh)', result.energyConsumed]).commit();
  for (const field of result.fields) {
    sheet
      .addRow([field.field, field.unit, field.count, field.average, field.minimum, field.maximum])
      .commit();
  }
  sheet.commit();
  await workbook.commit();
}

async function runOne(writer: WriterName, rowCount: number): Promise<WriterRun> {
  const rssBefore = process.memoryUsage().rss;
  const sink = new CountingSink();
  const started = process.hrtime.bigint();
  const rows = exportRows(rowCount);
  if (writer === 'own') {
    await writeXlsxExport(rows, sink, {
      from: new Date(START),
      to: new Date(),
      truncated: false,
      now: new Date(),
      readingsBefore: NO_READINGS_BEFORE,
    });
  } else {
    await writeWithExceljs(rows, sink);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // maxRSS is in KB and covers the whole process life; the run dominates it.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  return {
    writer,
    rows: rowCount,
    seconds: round(seconds, 2),
    rowsPerSecond: Math.round(rowCount / seconds),
    bytes: sink.bytes,
    rssGrowthMb: round((peakRss - rssBefore) / 1e6, 1),
  };
}

function machine(): string {
  return `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${round(totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}, Linux ${release()}, ${new Date().toISOString()}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '285120' },
      rounds: { type: 'string', default: '3' },
      writer: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const rowCount = Number(values.rows);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rowCount) || rowCount < 1 || !Number.isInteger(rounds) || rounds < 1) {
    throw new Error('--rows and --rounds take positive integers');
  }
  if (values.writer) {
    // A child: one writer, one workbook, its figures as JSON on stdout.
    if (!WRITERS.includes(values.writer as WriterName)) throw new Error(`unknown writer ${values.writer}`);
    console.log(JSON.stringify(await runOne(values.writer as WriterName, rowCount)));
    return;
  }

  console.log(`machine: ${machine()}`);
  console.log(`${rowCount} rows per workbook, ${rounds} rounds, each writer in a fresh process`);
  const runs: WriterRun[] = [];
  for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
    const order = roundIndex % 2 === 0 ? WRITERS : [...WRITERS].reverse();
    for (const writer of order) {
      const child = spawnSync(
        process.execPath,
        [...process.execArgv, __filename, '--writer', writer, '--rows', String(rowCount)],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      if (child.status !== 0) throw new Error(`the ${writer} run failed (exit ${child.status})`);
      const run = JSON.parse(child.stdout.trim().split('\n').pop() as string) as WriterRun;
      runs.push(run);
      console.log(
        `round ${roundIndex + 1} ${writer.padEnd(7)} ${run.rowsPerSecond} rows/s, ${run.seconds} s, ` +
          `${round(run.bytes / 1e6, 1)} MB, RSS +${run.rssGrowthMb} MB`,
      );
    }
  }
  for (const writer of WRITERS) {
    const mine = runs.filter((run) => run.writer === writer);
    const rates = mine.map((run) => run.rowsPerSecond).sort((a, b) => a - b);
    const growth = Math.max(...mine.map((run) => run.rssGrowthMb));
    console.log(
      `${writer.padEnd(7)} rows/s ${rates.join(' / ')} (target 30,000: ${rates[0] >= 30_000 ? 'met' : 'missed'}), ` +
        `RSS growth at most ${growth} MB (target < 100: ${growth < 100 ? 'met' : 'missed'})`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
