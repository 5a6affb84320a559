import { runInThisContext } from 'node:vm';

/**
 * aedes 1.x is an ES module only. Node (20.19+) loads it with `require`, so the built apps do;
 * Jest's own module system does so only on Node 24.9+, and the repository's Jest config
 * transforms nothing under node_modules. The e2e tests therefore hand the app the real package
 * loaded by Node's loader, from outside Jest's sandbox (`jest.mock('aedes', ...)`): same code,
 * another loader. Letting @swc/jest transform node_modules/aedes would make this unnecessary.
 */
export function loadAedesNatively(): unknown {
  const nodeProcess = runInThisContext('process') as NodeJS.Process;
  return nodeProcess.getBuiltinModule('node:module').createRequire(__filename)('aedes');
}
