import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { loadConfig } from '@solar/config';
import { setHeapGrowth, stopOnSignals } from '@solar/platform';
import { createApiApp } from './create-api-app';

async function main(): Promise<void> {
  setHeapGrowth();
  const config = loadConfig();
  const app = await createApiApp(config);
  const logger = app.get(Logger);
  if (config.generatedSecrets.length > 0) {
    logger.warn(
      `using generated ${config.generatedSecrets.join(', ')} from DATA_DIR; set them explicitly in production`,
    );
  }
  stopOnSignals(app, 'api');
  await app.listen(config.port);
  logger.log({ msg: 'ready', port: config.port }, 'api');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
