'use strict';
/**
 * Import boundaries, as ESLint config blocks (eslint.config.mjs spreads them).
 *
 * - A library imports only libraries of lower layers, by their `@solar/*` alias: not one of its
 *   own layer, not a higher one, not its own alias (a cycle through its index).
 * - Apps import any library and never another app; no library imports an app.
 * - Code in libs/ and apps/ never reaches into another library, app or root folder by a relative
 *   path (`../../libs/...`), nor by a path from the root (`libs/...`, which `baseUrl` compiles).
 * - `@solar/testing` is test code: only specs, the apps' test/ folders and bench/ import it; so
 *   are `*.fixtures.ts` files, kept beside the specs that use them and out of the build.
 *
 * `no-restricted-imports` matches the text of an import, so a relative path is caught by the
 * folder it names right after its `../` steps: a sibling library or app, or a root folder.
 */
const { solarLibs } = require('./scripts/solar-libs');

/** Lowest first. The libraries of one layer do not import each other. */
const LAYERS = [
  ['config', 'forecast', 'monitoring'], // forecast: solar physics and the model over plain data, no library;
  // monitoring: the Prometheus metric families, which every library above may record
  ['core', 'database', 'redis', 'mail'], // core: the shared kernel (clock, domain errors, secret box)
  ['domain'],
  ['auth', 'telemetry', 'predictions'],
  // synthetic: generated telemetry for trying the service, the device model over the ingestion path;
  // telemetry-import: a CSV history imported over that path, through a job queue the ingestor does
  // not load (docs/import.md)
  ['synthetic', 'telemetry-import'],
  ['platform'], // the HTTP and process shell: error mapping, health (a public route), logging
];
/** Test support above every layer; the test-only rule below keeps it out of production code. */
const TEST_SUPPORT = 'testing';
const APPS = ['api', 'ingestor', 'scheduler'];
const ROOT_FOLDERS = ['apps', 'libs', 'bench', 'scripts'];
const TEST_FILES = [
  '**/*.spec.ts',
  '**/*.fixtures.ts',
  '**/*.int-spec.ts',
  '**/*.e2e-spec.ts',
  'apps/*/test/**',
  'libs/testing/**',
];

/**
 * Crossings that exist today, each allowed for one file or folder (ending in `/`) only. `allow`
 * names an alias (`@solar/auth`) or a folder entered by a relative path (`apps/api`, `bench`).
 * A file inside an excepted folder keeps the folder's allowances too.
 */
const EXCEPTIONS = [
  {
    from: 'libs/testing/src/global-setup.ts',
    allow: ['libs/database'],
    reason: 'Jest runs global setup outside its module mapper, so the migrations are reached by path',
  },
  {
    from: 'apps/ingestor/test/support/api-app.ts',
    allow: ['apps/api'],
    reason: "starts the real api from its app factory, for the ingestor's e2e tests that run it beside the ingestor",
  },
  {
    from: 'apps/api/test/predictions.e2e-spec.ts',
    allow: ['apps/scheduler'],
    reason: "runs the scheduler's prediction jobs against the api that requests them",
  },
  {
    from: 'apps/api/test/forecast-accuracy.e2e-spec.ts',
    allow: ['apps/scheduler'],
    reason: "runs the scheduler's training and scheduled prediction jobs, then scores them through the api",
  },
  {
    from: 'apps/api/test/telemetry-import.e2e-spec.ts',
    allow: ['apps/scheduler'],
    reason: "runs the scheduler's import worker on the large files the api hands it",
  },
];

const libs = solarLibs();
const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((name) => [name, layer])));
const unplaced = libs.filter(({ name }) => !layerOf.has(name) && name !== TEST_SUPPORT);
if (unplaced.length > 0) {
  throw new Error(`eslint.boundaries.js: no layer for ${unplaced.map(({ alias }) => alias).join(', ')}`);
}

const units = [
  ...libs.map(({ name, folder }) => ({ kind: 'lib', name, folder })),
  ...APPS.map((name) => ({ kind: 'app', name, folder: `apps/${name}` })),
];

function unitOf(file) {
  const unit = units.find(({ folder }) => file.startsWith(`${folder}/`));
  if (!unit) throw new Error(`eslint.boundaries.js: ${file} is in no library or app`);
  return unit;
}

const alternatives = (names) => names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');

/** The `no-restricted-imports` options of a library or app, less what `allow` permits. */
function restrictions(unit, allow = []) {
  const patterns = [];
  if (unit.kind === 'lib' && unit.name !== TEST_SUPPORT) {
    const below = (name) => name === TEST_SUPPORT || layerOf.get(name) < layerOf.get(unit.name);
    const forbidden = libs.filter(({ name, alias }) => !below(name) && !allow.includes(alias));
    if (forbidden.length > 0) {
      const allowed = libs.filter(({ name }) => name !== TEST_SUPPORT && below(name));
      patterns.push({
        group: forbidden.map(({ alias }) => alias),
        message:
          `${unit.folder} imports only libraries of lower layers (eslint.boundaries.js): ` +
          (allowed.map(({ alias }) => alias).join(', ') || 'none'),
      });
    }
  }
  // Folders one can step into with `../`: the siblings of this unit, then the root's.
  const siblings = units.filter((other) => other.kind === unit.kind && other !== unit);
  const outside = [
    ...siblings.map((other) => ({ folder: other.folder, step: other.folder.split('/')[1] })),
    ...ROOT_FOLDERS.map((folder) => ({ folder, step: folder })),
  ].filter(({ folder }) => !allow.includes(folder));
  patterns.push({
    regex: `^(\\./)?(\\.\\./)+(${alternatives(outside.map(({ step }) => step))})(/|$)`,
    message: `A relative import leaves ${unit.folder}: import a library by its @solar/* alias, never an app's or bench's code.`,
  });
  patterns.push({
    regex: '^(apps|libs)(/|$)',
    message: 'A path from the root crosses boundaries unchecked: import a library by its @solar/* alias.',
  });
  return ['error', { patterns }];
}

const exceptionFiles = (from) => (from.endsWith('/') ? `${from}**/*.ts` : from);

/** The config blocks: one per library and app, then one per exception (which replaces them). */
function boundaries(exceptions = EXCEPTIONS) {
  const blocks = units.map((unit) => ({
    name: `boundaries/${unit.folder}`,
    files: [`${unit.folder}/**/*.ts`],
    rules: { 'no-restricted-imports': restrictions(unit) },
  }));
  const bySpecificity = [...exceptions].sort((a, b) => a.from.length - b.from.length);
  for (const exception of bySpecificity) {
    const allow = exceptions
      .filter((other) => exception.from.startsWith(other.from))
      .flatMap((other) => other.allow);
    blocks.push({
      name: `boundaries/exception ${exception.from}`,
      files: [exceptionFiles(exception.from)],
      rules: { 'no-restricted-imports': restrictions(unitOf(exception.from), allow) },
    });
  }
  blocks.push({
    name: 'boundaries/test support',
    files: ['{apps,libs}/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: libs.filter(({ name }) => name === TEST_SUPPORT).map(({ alias }) => alias),
              message: "Test support: only specs, the apps' test/ folders and bench/ import it.",
            },
            {
              // Data made up for specs, beside them, left out of the build (tsconfig.build.json).
              group: ['**/*.fixtures'],
              message: 'Fixtures are for specs: production code never imports a *.fixtures file.',
            },
          ],
        },
      ],
    },
  });
  return blocks;
}

module.exports = { boundaries, EXCEPTIONS, LAYERS };
