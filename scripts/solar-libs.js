'use strict';
/**
 * The `@solar/*` libraries, read from the `paths` of tsconfig.json: the one place they are
 * listed. Jest's module mapper, the bench's require hook and the lint's import boundaries all
 * come from here. tsconfig.json may hold comments and trailing commas, so TypeScript reads it.
 */
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const PREFIX = '@solar/';

/**
 * `{ name, alias, folder, dir }` per library, in the order of tsconfig.json: `name` is the alias
 * without `@solar/`, `folder` the library's folder from the root (`libs/config`), `dir` the
 * absolute directory the alias resolves to.
 */
function solarLibs() {
  const file = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  const { baseUrl = '.', paths = {} } = config.compilerOptions ?? {};
  return Object.entries(paths)
    .filter(([alias]) => alias.startsWith(PREFIX))
    .map(([alias, targets]) => {
      if (alias.includes('*') || targets.length !== 1) {
        throw new Error(
          `tsconfig.json paths: ${alias} must map to exactly one directory, without a wildcard`,
        );
      }
      const dir = path.resolve(root, baseUrl, targets[0]);
      const folder = path.relative(root, dir).split(path.sep).slice(0, 2).join('/');
      return { name: alias.slice(PREFIX.length), alias, folder, dir };
    });
}

module.exports = { root, solarLibs };
