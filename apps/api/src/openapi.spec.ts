import type { OpenAPIObject } from '@nestjs/swagger';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { loadConfig } from '@solar/config';
import { buildOpenApiDocument, OPENAPI_PLACEHOLDER_SECRETS } from './openapi-file';

const ROOT = resolve(__dirname, '../../..');
/** Where `npm run openapi` writes the document, and where `.redocly.lint-ignore.yaml` expects it. */
const DOCUMENT_FILE = join(ROOT, 'dist/openapi.json');

/** Where `npx openapi-typescript` writes the types, as `redocly.yaml` tells it. */
const TYPES_FILE = join(ROOT, 'dist/openapi.d.ts');

/** A client of the generated types: compiles only if they describe the api as it is. */
const USAGE = `
import type { components, paths } from ${JSON.stringify(TYPES_FILE.replace(/\.d\.ts$/, ''))};

type SunSources = paths['/api/sunsources']['get']['responses']['200']['content']['application/json'];
export const names = (sources: SunSources): string[] => sources.map((source) => source.name);

type Login = NonNullable<paths['/api/auth/login']['post']['requestBody']>['content']['application/json'];
export const login: Login = { email: 'owner@example.org', password: 'Sunny-Day-42', rememberMe: true };

type NotFound = paths['/api/sunsources/{id}']['get']['responses']['404']['content']['application/json'];
export const notFound: NotFound = { message: 'Sun source not found' };

type BadRequest = paths['/api/roi/{sunSourceId}/prices']['post']['responses']['400']['content']['application/json'];
export const invalid: BadRequest = { errors: { pricePerKwh: ['pricePerKwh must be a number'] } };

export const verdict: components['schemas']['BrokerVerdictDto']['result'] = 'allow';

// @ts-expect-error a Sun Source's name is a string: the types are not \`any\`
export const wrong: SunSources[number]['name'] = 42;
`;

describe('the OpenAPI document', () => {
  let document: OpenAPIObject;
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'solar-openapi-'));
    // Not localhost: Redocly warns about a server there (no-server-example.com), as it should
    // for a deployment's document.
    const config = loadConfig({
      ...OPENAPI_PLACEHOLDER_SECRETS,
      PUBLIC_BASE_URL: 'https://solar.example.org',
      DATA_DIR: workDir,
    });
    document = await buildOpenApiDocument(config);
    mkdirSync(dirname(DOCUMENT_FILE), { recursive: true });
    writeFileSync(DOCUMENT_FILE, JSON.stringify(document, null, 2));
    // Loading every module of the api takes ~10 s here, more on a busy machine.
  }, 60_000);

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it("passes Redocly's recommended rules: no error, no warning, only the exceptions with reasons", () => {
    const lint = spawnSync(
      process.execPath,
      [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--format=json', DOCUMENT_FILE],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } },
    );
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map(
      ({ ruleId, message, location }) => `${ruleId} at ${location[0]?.pointer}: ${message}`,
    );
    expect(problems).toEqual([]);
    // The ROI paths the interface fixes, the accuracy route beside the job status, the import
    // route beside the report, and the health probe without a client error.
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 5 });
    expect(lint.status).toBe(0);
  });

  it('names the security of every operation: session, internal key, webhook signature or none', () => {
    const security = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { security?: object[] }>).map(
        ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation.security] as const,
      ),
    );
    const bySecurity = (requirement: object[]) =>
      security
        .filter(([, given]) => JSON.stringify(given) === JSON.stringify(requirement))
        .map(([name]) => name);
    expect(bySecurity([{ internalKey: [] }]).sort()).toEqual([
      'POST /api/internal/mqtt/acl',
      'POST /api/internal/mqtt/auth',
    ]);
    expect(bySecurity([{ webhookSignature: [] }, {}])).toEqual(['POST /api/webhook/sunsource/{sunSourceId}']);
    expect(bySecurity([{}]).sort()).toEqual(
      [
        'GET /api/health',
        'GET /api/sharing/public/{sunSourceId}',
        'GET /api/sharing/public/{sunSourceId}/forecast',
        'GET /api/sharing/public/{sunSourceId}/forecast/accuracy',
        'GET /api/sharing/public/{sunSourceId}/metrics',
        'GET /api/sharing/public/{sunSourceId}/metrics/history',
        'GET /api/sharing/public/{sunSourceId}/roi',
        'GET /api/sharing/public/{sunSourceId}/weather',
        'POST /api/auth/login',
        'POST /api/auth/register',
        'POST /api/auth/resend-code',
        'POST /api/auth/verify-email',
        'GET /share/{sunSourceId}',
        'GET /share/{sunSourceId}/badge.svg',
      ].sort(),
    );
    expect(bySecurity([{ cookie: [] }])).toHaveLength(security.length - 17);
    expect(document.servers).toEqual([
      { url: 'https://solar.example.org', description: 'This deployment (PUBLIC_BASE_URL)' },
    ]);
  });

  it('becomes openapi-typescript types that compile, strict, for a client using them', () => {
    rmSync(TYPES_FILE, { force: true });
    // Its command line, as a client's build runs it (its library is ESM inside, which Jest's
    // module loader cannot require).
    const generate = spawnSync(
      process.execPath,
      [join(dirname(require.resolve('openapi-typescript/package.json')), 'bin/cli.js')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(generate.status).toBe(0);
    writeFileSync(join(workDir, 'usage.ts'), USAGE);
    const program = ts.createProgram([join(workDir, 'usage.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
      types: [],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  });
});
