import { join } from 'node:path';

/**
 * The sample the benchmark runs when given no input: six months of hourly synthetic data for a
 * 5 kW installation in Berlin, made by `bench/forecast/make-sample.ts` from the project's own
 * synthetic device, so anyone can run the bench from a fresh checkout.
 */
export const SAMPLE = {
  path: join(__dirname, 'sample', 'synthetic-berlin-2025.csv'),
  relativePath: 'bench/forecast/sample/synthetic-berlin-2025.csv',
  site: { capacityWatts: 5000, latitude: 52.52, longitude: 13.4, timeZone: 'Europe/Berlin' },
  /** Local days covered, both included. */
  from: '2025-03-01',
  to: '2025-08-31',
};
