import { INestApplicationContext } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DomainError } from '@solar/core';
import { SUN_SOURCE_NOT_FOUND, SunSourcesService } from '@solar/domain';
import { ImportReport, TelemetryImporter } from '@solar/telemetry-import';

export const IMPORT_USAGE =
  'usage: npm run cli -- import <sunSourceId> <file.csv> [--time-zone Europe/Berlin]';

/** Where the command writes: the report to `out`, the progress line to `progress` (a terminal, or none). */
export interface CommandOutput {
  out: NodeJS.WritableStream;
  progress?: NodeJS.WritableStream & { columns?: number };
}

/**
 * `import <sunSourceId> <file.csv>`: the file imported through the same importer as the HTTP
 * route's, for an operator (no owner check: whoever runs this holds the database). Prints the
 * report as the route answers it; exit code 0 when the import ran, 1 when it could not.
 */
export async function runImportCommand(
  app: INestApplicationContext,
  sunSourceId: string,
  file: string,
  timeZone: string | undefined,
  output: CommandOutput,
): Promise<number> {
  if (!(await app.get(SunSourcesService).findAny(sunSourceId))) {
    output.out.write(`${SUN_SOURCE_NOT_FOUND}: ${sunSourceId}\n`);
    return 1;
  }
  const size = (await stat(file)).size;
  const csv = createReadStream(file);
  const line = (counts: ImportReport) => {
    const percent = size === 0 ? 100 : Math.min(100, (csv.bytesRead / size) * 100);
    const filled = Math.round(percent / 5);
    return (
      `\r[${'#'.repeat(filled)}${'.'.repeat(20 - filled)}] ${percent.toFixed(0).padStart(3)}% ` +
      `${counts.rowsRead} rows: ${counts.stored} stored, ${counts.duplicate} duplicate, ` +
      `${counts.throttled} throttled, ${counts.rejected} rejected`
    );
  };
  try {
    const report = await app.get(TelemetryImporter).run(sunSourceId, csv, {
      timeZone,
      onProgress: output.progress ? (counts) => output.progress?.write(line(counts)) : undefined,
    });
    output.progress?.write(`${line(report)}\n`);
    output.out.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    output.progress?.write('\n');
    output.out.write(`${error.message}\n`);
    return 1;
  }
}
