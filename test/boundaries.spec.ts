import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { boundaries, BoundaryException, EXCEPTIONS } from '../eslint.boundaries';

const root = join(__dirname, '..');

/** The boundary blocks alone, without type information: fast, and what `npm run lint` applies. */
const linter = (exceptions?: BoundaryException[]) =>
  new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'] }, tseslint.configs.base, ...boundaries(exceptions)],
  });

describe('import boundaries', () => {
  const eslint = linter();

  it.each([
    { file: 'libs/auth/src/x.ts', source: `import { Role } from '@solar/domain';`, reported: false },
    { file: 'libs/predictions/src/x.ts', source: `import { Site } from '@solar/forecast';`, reported: false },
    { file: 'libs/domain/src/x.ts', source: `import { Public } from '@solar/auth';`, reported: true },
    { file: 'libs/auth/src/x.ts', source: `import { Public } from '@solar/platform';`, reported: true },
    { file: 'libs/telemetry/src/x.ts', source: `import { Public } from '@solar/auth';`, reported: true },
    { file: 'libs/forecast/src/x.ts', source: `import { AppConfig } from '@solar/config';`, reported: true },
    { file: 'libs/domain/src/x.ts', source: `export * from '@solar/domain';`, reported: true },
    { file: 'libs/domain/src/users/x.ts', source: `import { a } from '../sun-sources/y';`, reported: false },
    {
      file: 'libs/domain/src/users/x.ts',
      source: `import { a } from '../../../auth/src/x';`,
      reported: true,
    },
    { file: 'libs/domain/src/x.ts', source: `import { a } from '../../../apps/api/src/x';`, reported: true },
    { file: 'libs/domain/src/x.ts', source: `import { a } from 'libs/auth/src';`, reported: true },
    {
      file: 'apps/api/src/roi/x.ts',
      source: `import { a } from '../../../scheduler/src/x';`,
      reported: true,
    },
    {
      file: 'apps/api/src/roi/x.ts',
      source: `import { a } from '../../../../libs/domain/src';`,
      reported: true,
    },
    { file: 'apps/api/src/roi/x.ts', source: `import { a } from '../sun-sources/x';`, reported: false },
    { file: 'apps/api/src/roi/x.ts', source: `import { createUser } from '@solar/testing';`, reported: true },
    { file: 'libs/domain/src/x.ts', source: `import { createUser } from '@solar/testing';`, reported: true },
    {
      file: 'apps/api/test/x.e2e-spec.ts',
      source: `import { createUser } from '@solar/testing';`,
      reported: false,
    },
    {
      file: 'libs/domain/src/x.spec.ts',
      source: `import { createUser } from '@solar/testing';`,
      reported: false,
    },
    {
      file: 'apps/ingestor/test/x.e2e-spec.ts',
      source: `import { a } from '../../api/test/x';`,
      reported: true,
    },
    {
      file: 'apps/ingestor/test/x.e2e-spec.ts',
      source: `import { createMqttSource } from '@solar/testing';`,
      reported: false,
    },
    { file: 'apps/ingestor/src/x.ts', source: `import { a } from '../../api/src/x';`, reported: true },
    { file: 'libs/forecast/src/model/x.ts', source: `import { a } from './model.fixtures';`, reported: true },
    {
      file: 'libs/forecast/src/model/x.spec.ts',
      source: `import { a } from './model.fixtures';`,
      reported: false,
    },
    {
      file: 'libs/synthetic/src/x.ts',
      source: `import { Forecaster } from '@solar/forecast';`,
      reported: false,
    },
    {
      file: 'libs/telemetry/src/x.ts',
      source: `import { SyntheticDevice } from '@solar/synthetic';`,
      reported: true,
    },
    {
      file: 'libs/core/src/x.ts',
      source: `import { SunSourceRepository } from '@solar/domain';`,
      reported: true,
    },
    { file: 'libs/platform/src/x.ts', source: `import { DomainError } from '@solar/core';`, reported: false },
  ])('$file: `$source` reported: $reported', async ({ file, source, reported }) => {
    const [result] = await eslint.lintText(`${source}\n`, { filePath: join(root, file) });
    const rules = result.messages.map(({ ruleId }) => ruleId);
    expect(rules.some((rule) => rule?.endsWith('no-restricted-imports'))).toBe(reported);
  });

  // Each exception names code that crosses today: once that code is fixed, the exception goes.
  it.each(EXCEPTIONS.map((exception) => ({ ...exception })))(
    'the exception for $from is still needed',
    async ({ from, reason }) => {
      expect(reason).not.toBe('');
      const withoutIt = linter(EXCEPTIONS.filter((other) => other.from !== from));
      const files = from.endsWith('/')
        ? readdirSync(join(root, from), { recursive: true, encoding: 'utf8' })
            .filter((file) => file.endsWith('.ts'))
            .map((file) => join(from, file))
        : [from];
      const crossing: string[] = [];
      for (const file of files) {
        const source = readFileSync(join(root, file), 'utf8');
        const [result] = await withoutIt.lintText(source, { filePath: join(root, file) });
        if (result.messages.some(({ ruleId }) => ruleId === 'no-restricted-imports')) crossing.push(file);
      }
      expect(crossing).not.toEqual([]);
    },
  );
});
