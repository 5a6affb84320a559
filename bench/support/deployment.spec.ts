import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readImageDefaults } from '../../test/support/compose-file';
import { DeployedApp, deployedEnvironment, deployedNodeOptions } from './deployment';

const imageOptions = readImageDefaults(
  readFileSync(join(__dirname, '..', '..', 'docker', 'Dockerfile'), 'utf8'),
).environment.NODE_OPTIONS;

describe('deployedNodeOptions', () => {
  it('reads the image options for every app, which compose keeps when it sets its own', () => {
    expect(imageOptions).toBe('--max-semi-space-size=32');
    for (const app of ['api', 'ingestor', 'scheduler'] satisfies DeployedApp[]) {
      expect(deployedNodeOptions(app).split(' ')).toEqual(expect.arrayContaining(imageOptions.split(' ')));
    }
  });

  it("gives the scheduler, which runs imports, an old generation under 2 GB (V8's growing factor below 4)", () => {
    const limit = /--max-old-space-size=(\d+)/.exec(deployedNodeOptions('scheduler'))?.[1];
    expect(Number(limit)).toBe(1024);
  });

  it('leaves the api and the ingestor at the image options', () => {
    expect(deployedNodeOptions('api')).toBe(imageOptions);
    expect(deployedNodeOptions('ingestor')).toBe(imageOptions);
  });
});

describe('deployedEnvironment', () => {
  it('names a compile cache for every app: the image sets NODE_COMPILE_CACHE and compose leaves it', () => {
    for (const app of ['api', 'ingestor', 'scheduler'] satisfies DeployedApp[]) {
      expect({ app, cached: deployedEnvironment(app).NODE_COMPILE_CACHE !== undefined }).toEqual({
        app,
        cached: true,
      });
    }
  });
});
