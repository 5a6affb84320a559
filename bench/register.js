'use strict';
/**
 * Runs the benchmark's TypeScript directly: `node --require ./bench/register.js bench/ingest.ts`.
 * A require hook compiling `.ts` with @swc/core (Jest's options, scripts/swc-options.js) and
 * resolving the `@solar/*` aliases to the directories of tsconfig.json's `paths`. Worker threads
 * inherit it through `execArgv`. The apps under test are not run through this hook: the benchmark
 * starts the built ones (`dist/`).
 */
const fs = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');
const { solarLibs } = require('../scripts/solar-libs');
const { SWC_OPTIONS } = require('../scripts/swc-options');

const libDirs = new Map(solarLibs().map(({ alias, dir }) => [alias, dir]));

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, libDirs.get(request) ?? request, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename });
  module._compile(code, filename);
};
process.setSourceMapsEnabled?.(true);
