import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { parseArgs } from 'node:util';
import { loadConfig } from '@solar/config';
import { ImportCliModule } from './cli/import-cli.module';
import { IMPORT_USAGE, runImportCommand } from './cli/import-command';

/** `npm run cli -- <command>`: operator commands on the apps' own services. Only `import` for now. */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    options: { 'time-zone': { type: 'string' } },
    allowPositionals: true,
  });
  const [command, sunSourceId, file] = positionals;
  if (command !== 'import' || !sunSourceId || !file || positionals.length !== 3) {
    console.error(IMPORT_USAGE);
    process.exit(2);
  }
  // Warnings and errors only: the report is what the command prints.
  const config = { ...loadConfig(), logLevel: 'warn' };
  const app = await NestFactory.createApplicationContext(ImportCliModule.forRoot(config), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  try {
    process.exitCode = await runImportCommand(app, sunSourceId, file, values['time-zone'], {
      out: process.stdout,
      progress: process.stderr.isTTY ? process.stderr : undefined,
    });
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
