import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadConfig } from '@solar/config';
import { buildOpenApiDocument, OPENAPI_PLACEHOLDER_SECRETS } from './openapi-file';

/** The default file: where `redocly.yaml` and its ignore file expect the document. */
const DEFAULT_FILE = 'dist/openapi.json';

/** `npm run openapi [-- <file>]`: writes the OpenAPI document; its server is PUBLIC_BASE_URL. */
async function main(): Promise<void> {
  const file = resolve(process.argv[2] ?? DEFAULT_FILE);
  const document = await buildOpenApiDocument(loadConfig({ ...process.env, ...OPENAPI_PLACEHOLDER_SECRETS }));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
