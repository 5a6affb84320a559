import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@solar/config';
import { stopOnSignals } from '@solar/platform';
import { createSchedulerApp } from './create-scheduler-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createSchedulerApp(config);
  stopOnSignals(app, 'scheduler');
  await app.listen(config.schedulerPort);
  app.get(Logger).log({ msg: 'ready', port: config.schedulerPort }, 'scheduler');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
