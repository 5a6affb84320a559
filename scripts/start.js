#!/usr/bin/env node
// `npm start` and friends: builds when the TypeScript toolchain is installed (an incremental
// build is a no-op when nothing changed), then runs the named apps. Several apps run side by
// side with prefixed output; Ctrl-C stops them all.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entries = {
  api: 'dist/apps/api/src/main.js',
  ingestor: 'dist/apps/ingestor/src/main.js',
  scheduler: 'dist/apps/scheduler/src/main.js',
  '--migrate': 'dist/libs/database/src/migrate-cli.js',
  '--job': 'dist/apps/scheduler/src/run-job.js',
};

function buildIfPossible() {
  try {
    require.resolve('typescript', { paths: [root] });
  } catch {
    return; // production install without dev dependencies: run what was built
  }
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const args = process.argv.slice(2);
// `--job <name>`: the job's name travels on to the job runner.
const names = args[0] === '--job' ? ['--job'] : args;
const unknown = names.filter((name) => !(name in entries));
if (names.length === 0 || unknown.length > 0) {
  console.error(`usage: start.js ${Object.keys(entries).join('|')} [...]`);
  process.exit(2);
}

buildIfPossible();
if (names.length === 1) {
  process.argv = [process.argv[0], join(root, entries[names[0]]), ...args.slice(1)];
  require(join(root, entries[names[0]]));
} else {
  const { concurrently } = require('concurrently');
  const { result } = concurrently(
    names.map((name) => ({ name, command: `node ${entries[name]}` })),
    { cwd: root, prefix: 'name', killOthersOn: ['failure'], restartTries: 0 },
  );
  result.then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
