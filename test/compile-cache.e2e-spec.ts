import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAppsOnce } from '@solar/testing';
import { DeployedApp, deployedNodeOptions } from '../bench/support/deployment';

/**
 * The compile cache the image's build makes (scripts/warm-compile-cache.js) and the apps start
 * from: it must hold every module an app loads, and V8 must accept it under the options each app
 * is deployed with (a V8 flag that changes V8's flag hash would make it silently useless).
 */
const root = join(__dirname, '..');
const script = join(root, 'scripts', 'warm-compile-cache.js');
const APPS: DeployedApp[] = ['api', 'ingestor', 'scheduler'];
/** Whether the Node running the tests (and the apps they start) has a compile cache: 22.1 on. */
const nodeHasCompileCache = 'getCompileCacheDir' in nodeModule;

describe('the compile cache (scripts/warm-compile-cache.js)', () => {
  let cache: string;

  beforeAll(() => buildAppsOnce(root), 200_000);
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'solar-compile-cache-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  const warm = () =>
    execFileSync(process.execPath, [script], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: cache },
      encoding: 'utf8',
    });

  it('fills the cache with the modules of the three apps, or says this Node has none', () => {
    const said = warm();
    if (nodeHasCompileCache) {
      const modules = Number(/^compile cache: (\d+) modules of api, ingestor, scheduler in /.exec(said)?.[1]);
      expect(modules).toBeGreaterThan(1000);
      const [versioned] = readdirSync(cache);
      expect(versioned).toMatch(new RegExp(`^${process.version}-`));
      // One entry per module but the JSON files, which Node parses without V8's compiler.
      expect(readdirSync(join(cache, versioned)).length).toBeGreaterThan(modules * 0.95);
    } else {
      expect(said).toBe(`Node ${process.version} has no compile cache: nothing to warm\n`);
      expect(readdirSync(cache)).toEqual([]);
    }
  }, 60_000);

  it('refuses to run without NODE_COMPILE_CACHE where Node has a cache', () => {
    const run = spawnSync(process.execPath, [script], {
      cwd: root,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    expect(run.status).toBe(nodeHasCompileCache ? 1 : 0);
    expect(nodeHasCompileCache ? run.stderr : run.stdout).toMatch(
      nodeHasCompileCache ? /^set NODE_COMPILE_CACHE to the directory to fill/ : /has no compile cache/,
    );
  });

  it.each(APPS)(
    "is accepted for every module the %s loads, under the app's deployed options",
    (app) => {
      warm();
      // What Node says of each module it loads, with the options a container of the app runs with.
      const loaded = spawnSync(
        process.execPath,
        ['-e', `require(${JSON.stringify(join(root, 'dist', 'apps', app, 'src', `create-${app}-app.js`))})`],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH,
            NODE_OPTIONS: deployedNodeOptions(app),
            NODE_COMPILE_CACHE: cache,
            NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
          },
          encoding: 'utf8',
          maxBuffer: 256 * 2 ** 20, // several lines per module
        },
      );
      expect(loaded.status).toBe(0);
      const verdicts = [...loaded.stderr.matchAll(/V8 code cache for CommonJS (\S+) was (\w+(?: \w+)?)/g)]
        .filter(([, file]) => file.startsWith(root))
        .map(([, file, verdict]) => ({ file, verdict }));
      if (nodeHasCompileCache) {
        expect(verdicts.length).toBeGreaterThan(1000);
        expect(verdicts.filter(({ verdict }) => verdict !== 'accepted')).toEqual([]);
      } else {
        expect(verdicts).toEqual([]);
      }
    },
    60_000,
  );
});
