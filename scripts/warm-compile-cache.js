#!/usr/bin/env node
// Fills Node's compile cache (the directory NODE_COMPILE_CACHE names) with V8's compiled code of
// every module the three built apps load, so that a start reads code instead of compiling it
// (docs/operations.md, Start-up). The image runs this at build time; the benchmarks run it for
// the apps they start. It loads the apps' modules without starting anything.
//
// Node keys the cache by its own version and by the user id, so run it with the same Node, as
// the user the apps run as. A Node without a compile cache (before 22.1) is told and skipped.
'use strict';
const module_ = require('node:module');
const { join } = require('node:path');

const root = join(__dirname, '..');
const APPS = ['api', 'ingestor', 'scheduler'];

function main() {
  if (typeof module_.getCompileCacheDir !== 'function') {
    console.log(`Node ${process.version} has no compile cache: nothing to warm`);
    return;
  }
  const directory = module_.getCompileCacheDir();
  if (!directory) {
    console.error('set NODE_COMPILE_CACHE to the directory to fill');
    process.exit(1);
  }
  const before = Object.keys(require.cache).length;
  for (const app of APPS) require(join(root, 'dist', 'apps', app, 'src', `create-${app}-app.js`));
  module_.flushCompileCache();
  const modules = Object.keys(require.cache).length - before;
  console.log(`compile cache: ${modules} modules of ${APPS.join(', ')} in ${directory}`);
}

main();
