'use strict';
/**
 * Runs the benchmark's TypeScript directly: `node --require ./bench/register.js bench/ingest.ts`.
 * A require hook compiling `.ts` with @swc/core (the options Jest uses, see jest.config.js) and
 * resolving the `@solar/*` path aliases of tsconfig.json to `libs/*\/src`. Worker threads inherit
 * it through `execArgv`. The apps under test are not run through this hook: the benchmark starts
 * the built ones (`dist/`).
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..');
const ALIAS =
  /^@solar\/(config|database|redis|domain|auth|mail|platform|telemetry|forecast|predictions|testing)$/;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = ALIAS.exec(request);
  return resolveFilename.call(this, alias ? path.join(root, 'libs', alias[1], 'src') : request, ...rest);
};

const options = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};
process.setSourceMapsEnabled?.(true);
