import { loadConfig } from '@solar/config';
import { migrate } from './migrate';

/** `npm run migrate` */
migrate(loadConfig().databaseUrl).then(
  (applied) => console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date'),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
