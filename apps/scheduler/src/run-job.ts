import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@solar/config';
import { JOB_NAMES, JobName, JobRunner } from './jobs/job-runner';
import { SchedulerModule } from './scheduler.module';

/** `npm run job -- <name>`: runs one scheduler job now, under the same locks as the crons. */
async function main(): Promise<void> {
  const name = process.argv[2] as JobName;
  if (!JOB_NAMES.includes(name)) {
    console.error(`usage: npm run job -- ${JOB_NAMES.join('|')}`);
    process.exit(2);
  }
  const app = await NestFactory.createApplicationContext(
    SchedulerModule.forRoot(loadConfig(), { crons: false }),
    {
      bufferLogs: true,
    },
  );
  app.useLogger(app.get(Logger));
  const report = await app.get(JobRunner).run(name);
  await app.close();
  process.exitCode = report.status === 'failed' ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
