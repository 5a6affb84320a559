/** One Jest run: unit specs beside the code, integration and end-to-end specs against the real services. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@solar/(config|database|redis|domain|auth|mail|platform|telemetry|forecast|predictions|testing)$': '<rootDir>/libs/$1/src',
};

const common = { transform: { '^.+\\.ts$': swc }, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'],
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
  // Per project it is ignored by Jest 30: the e2e suites need it, and unit specs never come close.
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
