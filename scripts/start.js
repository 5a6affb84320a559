#!/usr/bin/env node
// `npm start` and friends: builds when the TypeScript toolchain is installed and a source changed
// since the last build, then runs the named apps. Several apps run side by
// side with prefixed output; Ctrl-C stops them all.
'use strict';
const { spawnSync } = require('node:child_process');
const { readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
// Written after a successful build: when no source is newer, the build is skipped. tsc's own
// incremental check still parses every declaration file it reads (about 20 s on a busy 2-core
// machine, most of an app's restart), and its build info is rewritten by type checks too.
const BUILD_STAMP = join(root, 'dist', '.start-build-stamp');
const SOURCES = ['apps', 'libs', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const entries = {
  api: 'dist/apps/api/src/main.js',
  ingestor: 'dist/apps/ingestor/src/main.js',
  scheduler: 'dist/apps/scheduler/src/main.js',
  '--migrate': 'dist/libs/database/src/migrate-cli.js',
  '--job': 'dist/apps/scheduler/src/run-job.js',
  '--openapi': 'dist/apps/api/src/write-openapi.js',
  '--cli': 'dist/apps/scheduler/src/cli.js',
};

function buildIfPossible() {
  try {
    require.resolve('typescript', { paths: [root] });
  } catch {
    return; // production install without dev dependencies: run what was built
  }
  if (builtSinceLastChange()) return;
  const startedAt = new Date();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // Dated from the build's start: a file saved while it ran is newer, and builds next time.
  writeFileSync(BUILD_STAMP, `${startedAt.toISOString()}\n`);
  utimesSync(BUILD_STAMP, startedAt, startedAt);
}

/** Whether the stamp is newer than every source file and folder (a folder changes when a file goes). */
function builtSinceLastChange() {
  let builtAt;
  try {
    builtAt = statSync(BUILD_STAMP).mtimeMs;
  } catch {
    return false;
  }
  const newerThanBuild = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return false;
    }
    if (stat.mtimeMs > builtAt) return true;
    if (!stat.isDirectory()) return false;
    return readdirSync(path).some((name) => name !== 'node_modules' && newerThanBuild(join(path, name)));
  };
  return !SOURCES.some((source) => newerThanBuild(join(root, source)));
}

const args = process.argv.slice(2);
// `--job <name>`, `--openapi [file]`, `--cli <command> ...`: what follows travels on to the entry.
const names = ['--job', '--openapi', '--cli'].includes(args[0]) ? [args[0]] : args;
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
