import { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/**
 * SIGTERM or SIGINT: stop taking work, run every shutdown hook (flushes, closing connections),
 * then exit 0. A second signal while stopping exits at once with status 1.
 */
export function stopOnSignals(app: INestApplication, name: string): void {
  const logger = app.get(Logger);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ msg: `second ${signal}: exiting without waiting` }, name);
      process.exit(1);
    }
    stopping = true;
    logger.log({ msg: 'stopping', signal }, name);
    app.close().then(
      () => {
        logger.log({ msg: 'stopped' }, name);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ msg: 'shutdown failed', err: error }, name);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
