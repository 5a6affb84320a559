import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';

/** The deployer's variables, as compose reads them from the shell or `.env`. */
export type Variables = Record<string, string | undefined>;

/** One service of a compose file, after interpolation, merge keys resolved. */
export interface ComposeService {
  name: string;
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string[];
  environment: Record<string, string>;
  healthcheck?: string[];
  ports: string[];
  volumes: Array<{ source: string; target: string; readOnly: boolean }>;
  configs: Array<{ source: string; target: string }>;
  dependsOn: Record<string, string>;
}

export interface ComposeFile {
  services: Map<string, ComposeService>;
  /** Top-level `configs:` with inline `content`, by name. */
  configContents: Map<string, string>;
}

/** `$$`, `$VAR`, `${VAR}` and `${VAR<modifier><argument>}` with `:-`, `-`, `:?`, `?`, `:+`, `+`. */
const REFERENCE = /\$\$|\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_]\w*)/g;

/** Compose's interpolation of one string: a `?` reference to an unset (`:?` or empty) variable throws. */
export function interpolate(text: string, variables: Variables): string {
  return text.replace(
    REFERENCE,
    (match, braced?: string, modifier?: string, argument?: string, bare?: string): string => {
      if (match === '$$') return '$';
      const name = (braced ?? bare)!;
      const value = variables[name];
      const fallback = argument ?? '';
      const isSet = value !== undefined;
      const isFilled = isSet && value !== '';
      switch (modifier) {
        case ':-':
          return isFilled ? value : fallback;
        case '-':
          return isSet ? value : fallback;
        case ':?':
        case '?':
          if (!(modifier === ':?' ? isFilled : isSet))
            throw new Error(`compose refuses: ${name}: ${fallback}`);
          return value ?? '';
        case ':+':
          return isFilled ? fallback : '';
        case '+':
          return isSet ? fallback : '';
        default:
          return value ?? '';
      }
    },
  );
}

/** Names compose refuses to start without (`${NAME:?...}` or `${NAME?...}`) in any value. */
export function requiredVariables(yamlText: string): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(REFERENCE)) if (match[2]?.endsWith('?')) names.add(match[1]);
    } else if (value && typeof value === 'object') {
      Object.values(value).forEach(visit);
    }
  };
  visit(parseYaml(yamlText));
  return [...names].sort();
}

/** Parses a compose file as `docker compose` would with these variables set. */
export function readCompose(yamlText: string, variables: Variables): ComposeFile {
  const document = interpolateAll(parseYaml(yamlText), variables) as {
    services: Record<string, Record<string, unknown>>;
    configs?: Record<string, { content?: string }>;
  };
  const services = new Map<string, ComposeService>();
  for (const [name, raw] of Object.entries(document.services)) {
    services.set(name, {
      name,
      image: raw.image as string | undefined,
      build: raw.build as ComposeService['build'],
      command: asCommand(raw.command),
      environment: asEnvironment(raw.environment),
      healthcheck: raw.healthcheck ? asCommand((raw.healthcheck as { test: unknown }).test) : undefined,
      ports: ((raw.ports as unknown[]) ?? []).map(scalar),
      volumes: ((raw.volumes as unknown[]) ?? []).map((volume) => {
        const [source, target, mode = ''] = scalar(volume).split(':');
        return { source, target, readOnly: mode.split(',').includes('ro') };
      }),
      configs: ((raw.configs as Array<{ source: string; target: string }>) ?? []).map((config) => ({
        source: config.source,
        target: config.target,
      })),
      dependsOn: asDependencies(raw.depends_on),
    });
  }
  const configContents = new Map<string, string>();
  for (const [name, config] of Object.entries(document.configs ?? {})) {
    if (config.content !== undefined) configContents.set(name, config.content);
  }
  return { services, configContents };
}

/** The container port of a `ports:` entry (`"[host:]published:container[/protocol]"`). */
export function containerPort(port: string): number {
  return Number(port.split(':').at(-1)!.split('/')[0]);
}

/** A `ports:` entry (`"[host_ip:][published:]container[/protocol]"`) taken apart. */
export function publishedPort(port: string): { hostIp?: string; published?: number; container: number } {
  const parts = port.split('/')[0].split(':');
  const container = Number(parts.pop());
  const published = parts.length > 0 ? Number(parts.pop()) : undefined;
  return { hostIp: parts.length > 0 ? parts.join(':') : undefined, published, container };
}

/** The base image of every stage of a Dockerfile (`FROM image [AS name]`), stage names excluded. */
export function baseImages(dockerfile: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const [, image, stage] of dockerfile.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    if (!stages.has(image)) images.push(image);
    if (stage) stages.add(stage);
  }
  return images;
}

/** YAML 1.2 with merge keys (`<<: *anchor`), as compose reads it. */
function parseYaml(text: string): unknown {
  return load(text, { schema: CORE_SCHEMA.withTags(mergeTag) });
}

function interpolateAll(value: unknown, variables: Variables): unknown {
  if (typeof value === 'string') return interpolate(value, variables);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, variables));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateAll(item, variables)]),
    );
  }
  return value;
}

/** A YAML scalar as the string compose passes on (`3000` and `true` as written). */
function scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asCommand(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.map(scalar) : scalar(value).split(/\s+/).filter(Boolean);
}

/** A map or a `KEY=value` list; a key without a value takes the host's, which a test never has. */
function asEnvironment(value: unknown): Record<string, string> {
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((item) => {
        const [key, ...rest] = scalar(item).split('=');
        return [key, rest.length > 0 ? rest.join('=') : null];
      })
    : Object.entries((value as Record<string, unknown>) ?? {});
  return Object.fromEntries(
    entries
      .filter(([, item]) => item !== null && item !== undefined)
      .map(([key, item]) => [key, scalar(item)]),
  );
}

function asDependencies(value: unknown): Record<string, string> {
  if (Array.isArray(value)) return Object.fromEntries(value.map((name) => [scalar(name), 'service_started']));
  return Object.fromEntries(
    Object.entries((value as Record<string, { condition?: string }>) ?? {}).map(([name, options]) => [
      name,
      options?.condition ?? 'service_started',
    ]),
  );
}

/** What a Dockerfile's final stage gives a container: environment, health check, default command. */
export interface ImageDefaults {
  environment: Record<string, string>;
  healthcheck?: string[];
  command?: string[];
}

/** Reads the final stage's `ENV` (`KEY=value` form), `HEALTHCHECK ... CMD [..]` and `CMD [..]`. */
export function readImageDefaults(dockerfile: string): ImageDefaults {
  const instructions = dockerfile
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const finalStage = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)));
  const defaults: ImageDefaults = { environment: {} };
  for (const line of finalStage) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    switch (instruction?.toUpperCase()) {
      case 'ENV':
        for (const [, key, quoted, plain] of rest.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g)) {
          defaults.environment[key] = quoted ?? plain;
        }
        break;
      case 'HEALTHCHECK': {
        const command = /\bCMD\s+(\[.*\])\s*$/.exec(rest)?.[1];
        defaults.healthcheck = command ? (JSON.parse(command) as string[]) : undefined;
        break;
      }
      case 'CMD':
        defaults.command = JSON.parse(rest) as string[];
        break;
    }
  }
  return defaults;
}
