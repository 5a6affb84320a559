import { spawnSync } from 'node:child_process';
import { HEAP_GROWTH_FLAG } from './heap-growth';

describe('setHeapGrowth', () => {
  // V8 ignores a flag it does not know, saying so only on stderr: a Node upgrade that dropped
  // this one would leave the api with V8's own factor and nothing else would notice.
  it('sets a flag this V8 knows', () => {
    const run = (flag: string) =>
      spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`], {
        encoding: 'utf8',
      });
    expect(run('--heap-growing-percent-of-nothing=1').stderr).toContain('unrecognized flag');
    const set = run(HEAP_GROWTH_FLAG);
    expect(set.status).toBe(0);
    expect(set.stderr).toBe('');
  });
});
