import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@solar/config';
import { stopOnSignals } from '@solar/platform';
import { createIngestorApp } from './create-ingestor-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createIngestorApp(config);
  const logger = app.get(Logger);
  stopOnSignals(app, 'ingestor');
  await app.listen(config.ingestorPort);
  await app.startAllMicroservices();
  logger.log({ msg: 'ready', port: config.ingestorPort, broker: config.mqtt.url }, 'ingestor');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
