import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildAppsOnce } from '@solar/testing';

/**
 * What a built app loads before it starts: a start is mostly loading modules, and a restarted
 * ingestor has every device waiting to reconnect (docs/operations.md, Start-up). The packages
 * only the api and the scheduler use stay out of it.
 */
const root = join(__dirname, '..');

/** The npm packages a built app's module graph loads, by name. */
function packagesLoadedBy(app: string): string[] {
  const appModule = join(root, 'dist', 'apps', app, 'src', `create-${app}-app.js`);
  const script = `
    require(${JSON.stringify(appModule)});
    const names = new Set();
    for (const file of Object.keys(require.cache)) {
      const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1];
      if (name) names.add(name);
    }
    console.log(JSON.stringify([...names].sort()));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' }),
  ) as string[];
}

describe('what the built apps load', () => {
  beforeAll(() => buildAppsOnce(root), 200_000);

  it("the ingestor loads neither the imports' job queue and CSV parser nor the DTOs' validator", () => {
    const loaded = packagesLoadedBy('ingestor');
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', 'mqtt', 'pg']));
    const apiOnly = ['bullmq', '@nestjs/bullmq', 'csv-parse', 'class-validator'];
    expect(loaded.filter((name) => apiOnly.includes(name))).toEqual([]);
  }, 60_000);

  it('the scheduler, which runs the import and prediction workers, loads the job queue', () => {
    expect(packagesLoadedBy('scheduler')).toEqual(expect.arrayContaining(['bullmq', 'csv-parse']));
  }, 60_000);
});
