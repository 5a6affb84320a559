/** One Jest run: unit specs beside the code (the benchmarks' too) and in test/, integration and end-to-end specs against the real services. */
const { solarLibs } = require('./scripts/solar-libs');
const { SWC_OPTIONS } = require('./scripts/swc-options');

const swc = ['@swc/jest', SWC_OPTIONS];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const moduleNameMapper = Object.fromEntries(
  solarLibs().map(({ alias, dir }) => [`^${escapeRegExp(alias)}$`, dir]),
);

const common = { transform: { '^.+\\.ts$': swc }, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,bench,test}/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.{int-spec,e2e-spec}.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
  ],
  maxWorkers: 2,
  // Each e2e suite loads a whole app, and a worker's heap reaches 700 MB over a run. A process
  // that large needs ~0.6 s to exit here (the kernel taking its memory back), past the 0.5 s
  // Jest waits before killing it and reporting a worker that "failed to exit gracefully": a
  // worker past 600 MB after a test file is replaced before the next (three times in a run).
  workerIdleMemoryLimit: '600MB',
  // Per project it is ignored by Jest 30: the e2e suites need it, and unit specs never come close.
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
