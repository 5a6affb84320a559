// aedes is an ES module only: the EMQX stand-in gets it from Node's loader (see native-aedes).
jest.mock('aedes', () =>
  jest
    .requireActual<typeof import('../apps/ingestor/test/support/native-aedes')>(
      '../apps/ingestor/test/support/native-aedes',
    )
    .loadAedesNatively(),
);

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { INTERNAL_API_KEY_HEADER } from '@solar/auth';
import { AppConfig, loadConfig } from '@solar/config';
import { ingestorCredentials } from '@solar/domain';
import {
  AppProcess,
  buildAppsOnce,
  createRedisPrefix,
  createTestDatabase,
  freePort,
  startAppProcess,
  TEST_REDIS_URL,
  TEST_SERVER_URL,
  waitFor,
} from '@solar/testing';
import {
  baseImages,
  ComposeFile,
  ComposeService,
  containerPort,
  publishedPort,
  readCompose,
  readImageDefaults,
  requiredVariables,
  Variables,
} from './support/compose-file';
import { askHttpSource, EmqxHttpSource, EmqxStandIn } from './support/emqx-stand-in';
import {
  HoconObject,
  hoconAt,
  hoconString,
  HoconValue,
  isHoconObject,
  parseHocon,
  parseHoconValue,
} from './support/hocon';

/**
 * The container deployment (docker/) checked without a container engine: compose's environment
 * against what the apps' configuration reads and needs, the health checks against the ports the
 * apps listen on, EMQX's HTTP authentication and authorization against the api's hook routes
 * and key, and then the built apps started with exactly the environment compose gives their
 * containers, on loopback, until their health checks pass.
 */
const root = join(__dirname, '..');
const dockerDir = join(root, 'docker');
const composeText = readFileSync(join(dockerDir, 'compose.yaml'), 'utf8');
const dockerfilePath = join(dockerDir, 'Dockerfile');
const image = readImageDefaults(readFileSync(dockerfilePath, 'utf8'));

/** Which app an image command runs: its `main.ts` listens on this configured port. */
const LISTEN_PORT: Record<string, (config: AppConfig) => number> = {
  api: (config) => config.port,
  ingestor: (config) => config.ingestorPort,
  scheduler: (config) => config.schedulerPort,
};
/** Variables naming a port an app listens on: in its container only its own one is bound. */
const PORT_VARIABLES = ['PORT', 'INGESTOR_PORT', 'SCHEDULER_PORT', 'HEALTH_PORT'];
/** Ports an app listens on besides its own (the api's metrics): here, any free one (0). */
const SIDE_PORT_VARIABLES = ['API_METRICS_PORT'];
/** Read by Node itself and the apps' dependencies (Express and others), not by our configuration. */
const NOT_CONFIGURATION = ['NODE_ENV', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE'];
/** Paths inside the image that are no volume: here, folders of the test's own. */
const IMAGE_PATH_VARIABLES = ['NODE_COMPILE_CACHE'];
/** The ports of the database and Redis images: compose leaves them at their defaults. */
const IMAGE_PORTS: Record<string, number> = { postgres: 5432, redis: 6379 };
/** EMQX's MQTT listener (`listeners.tcp.default`) when its configuration leaves it alone. */
const EMQX_DEFAULT_MQTT_BIND = '0.0.0.0:1883';
const EMQX_CONFIG_TARGET = '/opt/emqx/etc/emqx.conf';
/** The port devices expect MQTT over TLS on (IANA's `secure-mqtt`). */
const MQTT_TLS_PORT = 8883;
/** The Node.js line the image runs: the current LTS. */
const IMAGE_NODE_MAJOR = 24;

/** The deployer's `.env`: a test value for every variable compose refuses to start without. */
const deployment: Variables = Object.fromEntries(
  requiredVariables(composeText).map((name) => [name, randomBytes(32).toString('hex')]),
);

interface AppService {
  service: ComposeService;
  app: string;
  /** The container's environment: the image's `ENV` under compose's `environment`. */
  environment: Record<string, string>;
}

function appServices(compose: ComposeFile): AppService[] {
  return [...compose.services.values()]
    .filter(
      (service) =>
        service.build?.dockerfile !== undefined &&
        resolve(dockerDir, service.build.context ?? '.', service.build.dockerfile) === dockerfilePath,
    )
    .map((service) => ({
      service,
      app: /dist\/apps\/(\w+)\//.exec((service.command ?? image.command ?? []).join(' '))?.[1] ?? '?',
      environment: { ...image.environment, ...service.environment },
    }));
}

function emqxService(compose: ComposeFile): ComposeService {
  const emqx = [...compose.services.values()].find((service) => service.image?.startsWith('emqx/emqx:'));
  if (!emqx) throw new Error('no EMQX service in compose.yaml');
  return emqx;
}

/**
 * EMQX's effective configuration: the file compose mounts, under the `EMQX_*` overrides of the
 * service's environment (`__` separates levels, array elements counted from 1, each value HOCON).
 */
function emqxConfig(compose: ComposeFile): HoconObject {
  const emqx = emqxService(compose);
  const mount = emqx.volumes.find((volume) => volume.target === EMQX_CONFIG_TARGET);
  if (!mount) throw new Error(`compose.yaml mounts nothing at ${EMQX_CONFIG_TARGET}`);
  const config = parseHocon(readFileSync(resolve(dockerDir, mount.source), 'utf8'));
  for (const [name, raw] of Object.entries(emqx.environment)) {
    if (!name.startsWith('EMQX_')) continue;
    const path = name.slice('EMQX_'.length).toLowerCase().split('__');
    let value: HoconValue;
    try {
      value = parseHoconValue(raw);
    } catch {
      value = raw;
    }
    let parent: HoconValue = config;
    for (const [index, key] of path.entries()) {
      const last = index === path.length - 1;
      if (Array.isArray(parent)) {
        const position = Number(key) - 1;
        if (last) parent[position] = value;
        else parent = parent[position] ??= {};
      } else if (isHoconObject(parent)) {
        if (last) parent[key] = value;
        else parent = parent[key] ??= {};
      } else {
        throw new Error(`${name} overrides inside a value`);
      }
    }
  }
  return config;
}

/**
 * The ports EMQX listens on, from the `bind` (`[address:]port`) of its listeners: plain MQTT (the
 * default one when its configuration leaves it alone), MQTT over TLS, and the dashboard with the
 * REST API.
 */
function emqxPorts(config: HoconObject): { mqtt: number; mqttTls?: number; dashboard?: number } {
  const portOf = (bind: string | undefined) =>
    bind === undefined ? undefined : Number(bind.split(':').at(-1));
  return {
    mqtt: portOf(hoconString(config, 'listeners.tcp.default.bind') ?? EMQX_DEFAULT_MQTT_BIND)!,
    mqttTls: portOf(hoconString(config, 'listeners.ssl.default.bind')),
    dashboard: portOf(hoconString(config, 'dashboard.listeners.http.bind')),
  };
}

function httpSource(config: HoconObject, path: string): EmqxHttpSource & HoconObject {
  const source = hoconAt(config, path);
  if (!isHoconObject(source)) throw new Error(`EMQX configuration has no ${path}`);
  return source as EmqxHttpSource & HoconObject;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The container paths of named volumes, moved to directories of this machine. */
function withVolumesOnThisMachine(
  environment: Record<string, string>,
  service: ComposeService,
  volumeDirs: (volume: string) => string,
): Record<string, string> {
  const named = service.volumes.filter((volume) => /^[\w-]+$/.test(volume.source));
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => {
      const volume = named.find(({ target }) => value === target || value.startsWith(`${target}/`));
      return [name, volume ? volumeDirs(volume.source) + value.slice(volume.target.length) : value];
    }),
  );
}

/** The health check a container of this service runs: compose's, else the image's. */
function probeOf(service: ComposeService): string[] | undefined {
  const test = service.healthcheck;
  if (test?.[0] === 'NONE') return undefined;
  if (test?.[0] === 'CMD') return test.slice(1);
  if (test?.[0] === 'CMD-SHELL') return ['sh', '-c', test.slice(1).join(' ')];
  if (test) return test;
  return service.build ? image.healthcheck : undefined;
}

/** The port a Node health check fetches: a `process.env.X || 'default'` or a literal one. */
function probedPort(probe: string[], environment: Record<string, string>): number | undefined {
  const text = probe.join(' ');
  const variable = /process\.env\.(\w+)(?:\s*\|\|\s*'(\d+)')?/.exec(text);
  if (variable) return Number(environment[variable[1]] ?? variable[2]);
  const literal = /:(\d+)\/api\/health/.exec(text);
  return literal ? Number(literal[1]) : undefined;
}

describe('docker/: compose, the image and EMQX against the apps', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'solar-compose-'));
  const compose = readCompose(composeText, deployment);
  const apps = appServices(compose);
  const configOf = (app: AppService) =>
    loadConfig(withVolumesOnThisMachine(app.environment, app.service, (volume) => join(scratch, volume)));
  const appNamed = (name: string) => {
    const found = apps.find((app) => app.app === name);
    if (!found) throw new Error(`no compose service runs the ${name}`);
    return found;
  };

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs each app once from the image, with a command that exists in the build', () => {
    expect(apps.map((app) => app.app).sort()).toEqual(Object.keys(LISTEN_PORT).sort());
    for (const app of apps) {
      expect((app.service.command ?? image.command)?.slice(0, 2)).toEqual([
        'node',
        `dist/apps/${app.app}/src/main.js`,
      ]);
    }
  });

  it('gives every app each secret it would otherwise generate; compose refuses to start without one', () => {
    const secrets = loadConfig({ DATA_DIR: join(scratch, 'defaults') }).generatedSecrets;
    expect(secrets.length).toBeGreaterThan(0);
    for (const app of apps) {
      expect({ service: app.service.name, generated: configOf(app).generatedSecrets }).toEqual({
        service: app.service.name,
        generated: [],
      });
      for (const name of secrets) expect(app.environment[name]).toBe(deployment[name]);
    }
    for (const name of secrets) {
      expect(() => readCompose(composeText, { ...deployment, [name]: undefined })).toThrow(name);
    }
  });

  it('configures each app with valid values, only with variables the apps read, the same in all three', () => {
    const shared = (config: AppConfig) => ({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      redisKeyPrefix: config.redisKeyPrefix,
      dataDir: config.dataDir,
      internalApiKey: config.internalApiKey,
      sessionSecret: config.sessionSecret,
      secretsKey: config.secretsKey.toString('hex'),
      mqtt: ingestorCredentials(config),
      topicPrefix: config.mqtt.topicPrefix,
    });
    const probeVariables = [...(image.healthcheck ?? []).join(' ').matchAll(/process\.env\.(\w+)/g)].map(
      (match) => match[1],
    );
    for (const app of apps) {
      const read = new Set<string>();
      const recording = new Proxy(
        withVolumesOnThisMachine(app.environment, app.service, (volume) => join(scratch, volume)),
        {
          get: (target, name) => {
            if (typeof name === 'string') read.add(name);
            return target[name as string];
          },
        },
      );
      expect(() => loadConfig(recording)).not.toThrow();
      const unread = Object.keys(app.service.environment).filter(
        (name) => !read.has(name) && !probeVariables.includes(name) && !NOT_CONFIGURATION.includes(name),
      );
      expect({ service: app.service.name, unread }).toEqual({ service: app.service.name, unread: [] });
      expect(shared(configOf(app))).toEqual(shared(configOf(apps[0])));
    }
  });

  it("health checks probe each app's own port at /api/health; published ports are that port", () => {
    for (const app of apps) {
      const probe = probeOf(app.service);
      const port = LISTEN_PORT[app.app](configOf(app));
      expect({ service: app.service.name, probed: probe && probedPort(probe, app.environment) }).toEqual({
        service: app.service.name,
        probed: port,
      });
      expect(probe?.join(' ')).toContain('/api/health');
      for (const published of app.service.ports) expect(containerPort(published)).toBe(port);
    }
    for (const service of compose.services.values()) {
      for (const [dependency, condition] of Object.entries(service.dependsOn)) {
        expect(compose.services.has(dependency)).toBe(true);
        if (condition === 'service_healthy') expect(probeOf(compose.services.get(dependency)!)).toBeDefined();
      }
    }
  });

  it("EMQX asks the api service on its port, with the api's internal key in the header its guard reads", () => {
    const config = emqxConfig(compose);
    const api = appNamed('api');
    const apiConfig = configOf(api);
    const authentication = httpSource(config, 'authentication.1');
    const authorization = httpSource(config, 'authorization.sources.1');
    expect([authentication.mechanism, authentication.backend, authentication.enable]).toEqual([
      'password_based',
      'http',
      'true',
    ]);
    expect([authorization.type, authorization.enable, hoconString(config, 'authorization.no_match')]).toEqual(
      ['http', 'true', 'deny'],
    );
    for (const source of [authentication, authorization]) {
      const url = new URL(source.url);
      expect([url.protocol, url.hostname, Number(url.port || 80)]).toEqual([
        'http:',
        api.service.name,
        apiConfig.port,
      ]);
      const headers = lowerCaseKeys(source.headers);
      expect(headers[INTERNAL_API_KEY_HEADER]).toBe(apiConfig.internalApiKey);
      expect(headers['content-type']).toBe('application/json');
    }
  });

  it("EMQX's REST API is where the api looks for it, with the key and secret the api sends", () => {
    const config = emqxConfig(compose);
    const emqx = emqxService(compose);
    const { emqx: rest } = configOf(appNamed('api'));
    const url = new URL(rest.apiUrl!);
    expect([url.hostname, Number(url.port), url.pathname]).toEqual([
      emqx.name,
      emqxPorts(config).dashboard,
      '/api/v5',
    ]);
    const bootstrap = emqx.configs.find(
      (file) => file.target === hoconString(config, 'api_key.bootstrap_file'),
    );
    const [key, secret, role] = (compose.configContents.get(bootstrap?.source ?? '') ?? '').trim().split(':');
    expect({ key, secret, role }).toEqual({
      key: rest.apiKey,
      secret: rest.apiSecret,
      role: 'administrator',
    });
  });

  it("the ingestors share one subscription group on EMQX's MQTT port, as the account the api makes superuser", () => {
    const config = emqxConfig(compose);
    const emqx = emqxService(compose);
    const ingestor = configOf(appNamed('ingestor'));
    const api = configOf(appNamed('api'));
    const url = new URL(ingestor.mqtt.url);
    expect([url.hostname, Number(url.port)]).toEqual([emqx.name, emqxPorts(config).mqtt]);
    expect(emqx.ports.map(containerPort)).toContain(Number(url.port));
    expect(ingestor.mqtt.embeddedBroker).toBe(false);
    expect(ingestor.mqtt.sharedGroup).toEqual(expect.any(String));
    expect(hoconString(config, 'mqtt.shared_subscription')).not.toBe('false');
    // Configured, not the development fallback; and the api answers the broker with the same.
    expect([ingestor.mqtt.username, ingestor.mqtt.password]).toEqual([
      expect.any(String),
      expect.any(String),
    ]);
    expect(ingestorCredentials(api)).toEqual(ingestorCredentials(ingestor));
  });

  it('takes devices over TLS on the port the api hands out, with a mounted certificate kept out of git', () => {
    const config = emqxConfig(compose);
    const emqx = emqxService(compose);
    const api = configOf(appNamed('api'));
    const ports = emqxPorts(config);
    const listener = 'listeners.ssl.default';
    expect(hoconString(config, `${listener}.enable`)).toBe('true');
    const tlsPort = ports.mqttTls;
    expect(tlsPort).toBe(MQTT_TLS_PORT);
    // Published on every interface, as the port named in every source's connection details.
    const published = emqx.ports.map(publishedPort).find((port) => port.container === tlsPort);
    expect(published).toEqual({ hostIp: undefined, published: tlsPort, container: tlsPort });
    expect(api.mqtt.publicPort).toBe(published?.published);

    // The certificate and key come from one host directory, mounted read-only.
    const files = ['certfile', 'keyfile'].map((name) =>
      hoconString(config, `${listener}.ssl_options.${name}`)!,
    );
    const mounts = files.map((file) => emqx.volumes.find((volume) => file.startsWith(`${volume.target}/`)));
    expect(mounts[0]).toEqual({
      source: expect.stringMatching(/^[./]/),
      target: expect.any(String),
      readOnly: true,
    });
    expect(mounts[1]).toBe(mounts[0]);
    // The directory compose mounts by default holds no key in the repository.
    const directory = resolve(dockerDir, mounts[0]!.source);
    const inGit = (file: string) => join(directory, file.slice(mounts[0]!.target.length + 1));
    for (const file of files) {
      expect(() => execFileSync('git', ['check-ignore', '-q', inGit(file)], { cwd: root })).not.toThrow();
    }

    // Plain MQTT, where the key travels in clear, is published on this host only.
    expect(emqx.ports.map(publishedPort).find((port) => port.container === ports.mqtt)?.hostIp).toBe(
      '127.0.0.1',
    );
  });

  it(`builds and runs the image on Node.js ${IMAGE_NODE_MAJOR}`, () => {
    const images = baseImages(readFileSync(dockerfilePath, 'utf8'));
    expect(images.length).toBeGreaterThan(0);
    for (const base of images)
      expect(base).toMatch(new RegExp(`^node:${IMAGE_NODE_MAJOR}(\\.\\d+)*-bookworm-slim$`));
  });

  describe('the built apps, started as compose starts their containers', () => {
    interface Running extends AppProcess {
      app: AppService;
      environment: Record<string, string>;
    }
    const running: Running[] = [];
    const cleanups: Array<() => Promise<void>> = [];

    beforeAll(() => buildAppsOnce(root), 200_000);

    afterAll(async () => {
      for (const child of running) if (child.process.exitCode === null) child.process.kill('SIGKILL');
      await Promise.all(running.map((child) => child.exited));
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    function start(app: AppService, environment: Record<string, string>): Running {
      const [program, ...args] = app.service.command ?? image.command ?? [];
      if (program !== 'node') throw new Error(`${app.service.name} does not run node`);
      const started = { app, environment, ...startAppProcess(root, args, environment) };
      running.push(started);
      return started;
    }

    /** Runs the container's health check as Docker would: healthy when it exits 0 in time. */
    function probe(child: Running): Promise<boolean> {
      const [program, ...args] = probeOf(child.app.service)!;
      return new Promise((done) =>
        execFile(
          program === 'node' ? process.execPath : program,
          args,
          { env: { PATH: process.env.PATH, ...child.environment }, timeout: 5000 },
          (error) => done(error === null),
        ),
      );
    }

    it('each reports healthy through its own health check, and EMQX lets the ingestor in through the api', async () => {
      const database = await createTestDatabase();
      cleanups.push(database.drop);
      const redis = createRedisPrefix();
      cleanups.push(redis.cleanup);
      const volumes = mkdtempSync(join(tmpdir(), 'solar-compose-volumes-'));
      cleanups.push(async () => rmSync(volumes, { recursive: true, force: true }));

      const server = new URL(TEST_SERVER_URL);
      const deployed = readCompose(composeText, {
        ...deployment,
        POSTGRES_USER: decodeURIComponent(server.username) || 'postgres',
        ...(server.password ? { POSTGRES_PASSWORD: decodeURIComponent(server.password) } : {}),
        POSTGRES_DB: database.name,
      });
      const services = appServices(deployed);
      const emqx = emqxService(deployed);
      const emqxConf = emqxConfig(deployed);
      const redisServer = new URL(TEST_REDIS_URL);
      const emqxListens = emqxPorts(emqxConf);

      // The compose network on loopback: `service:port` → where it answers here.
      const closedPort = await freePort();
      const brokerPort = await freePort();
      const network = new Map<string, string>([
        [`postgres:${IMAGE_PORTS.postgres}`, `${server.hostname}:${server.port || IMAGE_PORTS.postgres}`],
        [`redis:${IMAGE_PORTS.redis}`, `${redisServer.hostname}:${redisServer.port || IMAGE_PORTS.redis}`],
        [`${emqx.name}:${emqxListens.mqtt}`, `127.0.0.1:${brokerPort}`],
        [`${emqx.name}:${emqxListens.dashboard}`, `127.0.0.1:${closedPort}`],
      ]);
      const ownPort = new Map<AppService, { inContainer: number; here: number }>();
      for (const app of services) {
        const inContainer = LISTEN_PORT[app.app](configOf(app));
        const here = await freePort();
        ownPort.set(app, { inContainer, here });
        network.set(`${app.service.name}:${inContainer}`, `127.0.0.1:${here}`);
      }
      const onLoopback = (value: string, name: string): string => {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          return value;
        }
        if (!deployed.services.has(url.hostname)) return value;
        const port = url.port || { 'http:': '80', 'https:': '443' }[url.protocol] || '';
        const target = network.get(`${url.hostname}:${port}`);
        if (!target) throw new Error(`${name} points at ${url.hostname}:${port}, where nothing listens`);
        const [hostname, loopbackPort] = target.split(':');
        url.hostname = hostname;
        url.port = loopbackPort;
        return url.toString().replace(/\/$/, value.endsWith('/') ? '/' : '');
      };

      // Exactly the container's environment, but for hosts, ports, volume and image paths, and a
      // Redis key prefix of this test's own (compose's apps own their Redis; this one is shared).
      const environmentOf = (app: AppService): Record<string, string> => {
        const { inContainer, here } = ownPort.get(app)!;
        const moved = withVolumesOnThisMachine(app.environment, app.service, (volume) =>
          join(volumes, volume),
        );
        return {
          ...Object.fromEntries(
            Object.entries(moved).map(([name, value]) => [
              name,
              PORT_VARIABLES.includes(name)
                ? String(value === String(inContainer) ? here : closedPort)
                : SIDE_PORT_VARIABLES.includes(name)
                  ? '0'
                  : IMAGE_PATH_VARIABLES.includes(name)
                    ? join(volumes, `image${value}`)
                    : onLoopback(value, `${app.service.name}: ${name}`),
            ]),
          ),
          REDIS_KEY_PREFIX: redis.prefix,
        };
      };

      const toLoopback = (source: EmqxHttpSource): EmqxHttpSource => ({
        ...source,
        url: onLoopback(source.url, 'EMQX'),
      });
      const authentication = toLoopback(httpSource(emqxConf, 'authentication.1'));
      const authorization = toLoopback(httpSource(emqxConf, 'authorization.sources.1'));
      const broker = new EmqxStandIn(authentication, authorization);
      await broker.start(brokerPort);
      cleanups.push(() => broker.stop());

      // In compose's order: a service starts once the services it depends on are healthy.
      const healthy = new Set<string>(deployed.services.keys());
      for (const app of services) healthy.delete(app.service.name);
      const started: Running[] = [];
      while (started.length < services.length) {
        const wave = services.filter(
          (app) =>
            !started.some((child) => child.app === app) &&
            Object.keys(app.service.dependsOn).every((dependency) => healthy.has(dependency)),
        );
        if (wave.length === 0) throw new Error('the apps depend on each other in a cycle');
        const children = wave.map((app) => start(app, environmentOf(app)));
        await Promise.all(
          children.map((child) =>
            waitFor(() => probe(child), `${child.app.service.name}'s health check`, 30_000, 250).catch(
              (error: Error) => {
                throw new Error(`${error.message}\n${child.lines.slice(-15).join('\n')}`);
              },
            ),
          ),
        );
        for (const child of children) healthy.add(child.app.service.name);
        started.push(...children);
      }

      for (const child of started) {
        const port = ownPort.get(child.app)!.here;
        const response = await fetch(`http://127.0.0.1:${port}/api/health`);
        const body = (await response.json()) as { status: string; checks: Record<string, unknown> };
        expect({ service: child.app.service.name, status: response.status, health: body.status }).toEqual({
          service: child.app.service.name,
          status: 200,
          health: 'ok',
        });
      }

      // The ingestor got in as EMQX would let it: authenticated by the api as superuser, and
      // subscribed in its shared group.
      const ingestor = started.find((child) => child.app.app === 'ingestor')!;
      const {
        MQTT_USERNAME: username,
        MQTT_PASSWORD: password,
        MQTT_SHARED_GROUP: group,
      } = ingestor.environment;
      const session = broker.connections.find((connection) => connection.username === username);
      expect(session).toEqual({ clientId: expect.any(String), username, superuser: true });
      const topics = broker.subscriptions
        .filter((subscription) => subscription.clientId === session!.clientId)
        .map((subscription) => subscription.topic);
      expect(topics.length).toBeGreaterThan(0);
      for (const topic of topics) expect(topic.startsWith(`$share/${group}/`)).toBe(true);

      // EMQX's requests, straight at the api: the routes exist, the key and password are checked.
      const clientid = session!.clientId;
      expect(await askHttpSource(authentication, { clientid, username, password })).toEqual({
        status: 200,
        body: { result: 'allow', is_superuser: true },
      });
      expect(await askHttpSource(authentication, { clientid, username, password: `${password}x` })).toEqual({
        status: 200,
        body: { result: 'deny' },
      });
      const keyless = {
        ...authentication,
        headers: Object.fromEntries(
          Object.entries(authentication.headers).filter(
            ([name]) => name.toLowerCase() !== INTERNAL_API_KEY_HEADER,
          ),
        ),
      };
      expect((await askHttpSource(keyless, { clientid, username, password })).status).toBe(401);
      for (const topic of topics) {
        expect(
          await askHttpSource(authorization, { clientid, username, topic, action: 'subscribe' }),
        ).toEqual({
          status: 200,
          body: { result: 'allow' },
        });
      }
      const stranger = {
        clientid: 'src-stranger',
        username: 'src-stranger',
        topic: topics[0],
        action: 'subscribe',
      } as const;
      expect(await askHttpSource(authorization, stranger)).toEqual({ status: 200, body: { result: 'deny' } });

      // `docker compose down`: SIGTERM, in reverse order; each exits cleanly.
      for (const child of [...started].reverse()) {
        child.process.kill('SIGTERM');
        expect({ service: child.app.service.name, exit: await child.exited }).toEqual({
          service: child.app.service.name,
          exit: { code: 0, signal: null },
        });
      }
    }, 60_000);
  });
});
