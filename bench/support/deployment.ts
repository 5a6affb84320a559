import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCompose, readImageDefaults, requiredVariables } from '../../test/support/compose-file';

const DOCKER_DIR = join(__dirname, '..', '..', 'docker');

export type DeployedApp = 'api' | 'ingestor' | 'scheduler';

/**
 * The `NODE_OPTIONS` a container of `app` runs with (docker/Dockerfile's `ENV` under the compose
 * service's `environment`): the benchmarks start the apps with them, so the V8 heap measured is
 * the deployed one.
 */
export function deployedNodeOptions(app: DeployedApp): string {
  return deployedEnvironment(app).NODE_OPTIONS ?? '';
}

/**
 * The environment a container of `app` starts with: docker/Dockerfile's `ENV` under the compose
 * service's `environment`. Where it names a compile cache (`NODE_COMPILE_CACHE`, made by
 * scripts/warm-compile-cache.js in the image's build) the benchmarks make one of their own the
 * same way, so a start measured is a deployed start.
 */
export function deployedEnvironment(app: DeployedApp): Record<string, string> {
  const composeText = readFileSync(join(DOCKER_DIR, 'compose.yaml'), 'utf8');
  // Any value will do for the secrets compose insists on.
  const variables = Object.fromEntries(requiredVariables(composeText).map((name) => [name, 'set']));
  const service = [...readCompose(composeText, variables).services.values()].find((candidate) =>
    candidate.command?.join(' ').includes(`dist/apps/${app}/`),
  );
  if (!service) throw new Error(`docker/compose.yaml runs no ${app}`);
  const image = readImageDefaults(readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8'));
  return { ...image.environment, ...service.environment };
}
