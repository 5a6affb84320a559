'use strict';
/**
 * How the TypeScript of specs and benchmarks is compiled with @swc/core, the one place it is
 * written: Jest's transform (jest.config.js) and the benchmarks' require hook (bench/register.js).
 * Legacy decorators with their metadata are what Nest's dependency injection reads, as `tsc`
 * emits them for the build.
 */
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = { SWC_OPTIONS };
