import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Aedes, AedesOptions, AuthorizePublishHandler, Client } from 'aedes';
import { createServer, Server } from 'node:net';
import { Duplex } from 'node:stream';
import type { Server as TlsServer } from 'node:tls';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { DeviceAuthService, deviceIdentity, ingestorCredentials } from '@solar/domain';
import { MqttConnectVerdict, mqttConnects, mqttDevicesConnected } from '@solar/monitoring';
import { brokerListenAddress } from './broker-address';
import { CheckLine } from './check-line';
import { ConnectAttempts } from './connect-attempts';
import { TelemetryMessage } from '../transport/telemetry-message';
import { matchesAnyFilter, telemetryTopicFilters } from '../transport/telemetry-topics';
import { duplexPair } from './in-process-link';
import { listenForDevicesOverTls } from './tls-listener';

/** Room for `src-{uuid}` (40) and `solar-ingestor-{host}-{pid}`; MQTT 3.1.1 brokers may allow more than 23. */
const MAX_CLIENT_ID_LENGTH = 256;

/** EMQX's authorization cache (docker/emqx/emqx.conf): per connection, 32 topics, one minute. */
const ACL_CACHE_TOPICS = 32;
const ACL_CACHE_TTL_MS = 60_000;

/**
 * CONNECTs whose credentials are being checked at once; the next ones wait their turn
 * (`CheckLine`). A fleet arriving cold after a restart is answered at the pace the database
 * allows (lookups are batched), and the pool stays usable for the telemetry writer.
 */
export const MAX_PENDING_AUTHENTICATIONS = 2000;
/**
 * CONNECTs waiting for a check, at most; past it one is refused ("server unavailable"). Each
 * holds its connection's few kilobytes until its turn, so this bounds the memory of a storm.
 */
export const MAX_WAITING_AUTHENTICATIONS = 20_000;

/** CONNACK return codes aedes sends for a refusal carrying `returnCode` (MQTT 3.1.1). */
const SERVER_UNAVAILABLE = 3;

class ConnectRefused extends Error {
  constructor(readonly returnCode: number) {
    super();
  }
}

/** Takes a telemetry message; resolves once it is stored or refused for good. */
export type TelemetrySink = (message: TelemetryMessage) => Promise<void>;

interface Session {
  username: string;
  superuser: boolean;
  /** Topic → the publish verdict and when it was given. */
  publishVerdicts: Map<string, { allowed: boolean; at: number }>;
}

/**
 * `EMBEDDED_BROKER=true`: an MQTT broker inside the ingestor, on `MQTT_URL`'s host and port, for
 * a single-machine install without EMQX. It gives the answers the api gives EMQX, from the same
 * `DeviceAuthService` in this process: every CONNECT and a device's PUBLISH are checked against
 * the announced source cache (`SourceAccessCache`), so a fleet reconnecting costs no request to
 * the api, and a database lookup only for a source the cache does not hold. The publish verdict is also cached per
 * connection as EMQX caches it; a refused publish drops the client. The verdict depends only on
 * the client's identity and the topic, and a source whose key changes or that is deactivated or
 * deleted has its clients dropped and its cache entry forgotten, so neither cache outlives a
 * revocation. Superusers (the ingestor) may subscribe and publish anything; devices may not
 * subscribe at all.
 *
 * CONNECTs are refused before any lookup past `MQTT_CONNECT_RATE_LIMIT_PER_CLIENT_ID` per client
 * id and window, and when `MAX_WAITING_AUTHENTICATIONS` already wait behind the
 * `MAX_PENDING_AUTHENTICATIONS` being checked. The ingestor's own account is compared with its
 * configured credentials, never looked up, and neither counted nor made to wait.
 *
 * A publish on a telemetry topic is handed to the ingestor's consumer while aedes authorizes it,
 * and authorized only once the message is stored or refused for good: aedes writes a QoS 1
 * PUBACK right after the authorization and before it routes the message to any subscriber, so
 * this is the one point before the acknowledgement where the message can be stored. Nothing
 * subscribes to it afterwards (the ingestor's in-process client does not). aedes handles the
 * packets of one socket read concurrently and reads that client's socket again only when all
 * are done, so a slow write holds back only the device that sent it; the in-flight cap bounds
 * the total.
 */
@Injectable()
export class EmbeddedBroker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EmbeddedBroker.name);
  private readonly sessions = new WeakMap<Client, Session>();
  private readonly clients = new Set<Client>();
  private broker: Aedes | undefined;
  private server: Server | undefined;
  private tlsServer: TlsServer | undefined;
  private closed: Promise<void> | undefined;
  private telemetry: TelemetrySink | undefined;
  private readonly telemetryFilters: string[];
  private readonly connectAttempts: ConnectAttempts;
  private readonly checks = new CheckLine(MAX_PENDING_AUTHENTICATIONS, MAX_WAITING_AUTHENTICATIONS);
  private stopReporting: (() => void) | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly devices: DeviceAuthService,
  ) {
    this.telemetryFilters = telemetryTopicFilters({ topicPrefix: config.mqtt.topicPrefix });
    this.connectAttempts = new ConnectAttempts(
      config.limits.mqttConnectsPerClientId,
      config.limits.mqttConnectWindowSeconds * 1000,
    );
  }

  /** Where telemetry goes before its publisher is acknowledged: set before the broker starts. */
  handTelemetryTo(sink: TelemetrySink): void {
    this.telemetry = sink;
  }

  /** Before the MQTT transport connects: `main.ts` starts the microservice after `init`. */
  async onApplicationBootstrap(): Promise<void> {
    const { host, port } = brokerListenAddress(this.config.mqtt.url);
    const broker = await Aedes.createBroker(this.options());
    broker.authorizePublish = this.thenHandOver(broker.authorizePublish);
    broker.on('clientReady', (client) => this.clients.add(client));
    broker.on('clientDisconnect', (client) => this.clients.delete(client));
    broker.on('clientError', (client, error) =>
      this.logger.debug({ clientId: client.id, err: error }, 'MQTT client error'),
    );
    const server = createServer(broker.handle);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => this.logger.error({ err: error }, 'embedded MQTT broker error'));
    this.broker = broker;
    this.server = server;
    this.stopReporting = mqttDevicesConnected.report(() => this.devicesConnected());
    this.logger.log({ msg: 'embedded MQTT broker listening', host, port });
    if (this.config.mqtt.tls) {
      this.tlsServer = await listenForDevicesOverTls(broker.handle, this.config.mqtt.tls, host, this.logger);
    }
    if (this.config.mqtt.sharedGroup) {
      this.logger.warn(
        'MQTT_SHARED_GROUP is ignored with EMBEDDED_BROKER: the embedded broker has no shared subscriptions',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopReporting?.();
    await this.stop();
  }

  /** Connected clients but the ingestor's own (and any other superuser's). */
  private devicesConnected(): number {
    let devices = 0;
    for (const client of this.clients) if (!this.sessions.get(client)?.superuser) devices += 1;
    return devices;
  }

  /**
   * A connection for the ingestor's own client that never leaves the process: one end of an
   * in-memory pair, the broker serving the other. Only once the broker has started.
   */
  connectInProcess(): Duplex {
    if (!this.broker) throw new Error('the embedded broker has not started');
    const [client, server] = duplexPair();
    this.broker.handle(server);
    return client;
  }

  /** Drops every client of the source (either username form): its key changed, or it is gone. */
  disconnectSource(sunSourceId: string): number {
    const dropped = [...this.clients].filter(
      (client) => deviceIdentity(this.sessions.get(client)?.username ?? '')?.sunSourceId === sunSourceId,
    );
    for (const client of dropped) this.close(client);
    if (dropped.length > 0) {
      this.logger.log({ msg: 'MQTT clients disconnected', sunSourceId, clients: dropped.length });
    }
    return dropped.length;
  }

  /**
   * First step of shutdown: no new connections, and devices are dropped, so nothing more is
   * acknowledged to them while the ingestor unsubscribes. They resend to the next broker.
   */
  closeDeviceConnections(): void {
    this.server?.close();
    this.tlsServer?.close();
    for (const client of this.clients) {
      if (!this.sessions.get(client)?.superuser) this.close(client);
    }
  }

  /** Closes the listener and every remaining client. Idempotent. */
  stop(): Promise<void> {
    const { broker, server } = this;
    if (!broker || !server) return Promise.resolve();
    this.closed ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const tlsClosed = new Promise<void>((resolve) =>
        this.tlsServer ? this.tlsServer.close(() => resolve()) : resolve(),
      );
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await Promise.all([serverClosed, tlsClosed]);
    })();
    return this.closed;
  }

  private options(): AedesOptions {
    return {
      maxClientsIdLength: MAX_CLIENT_ID_LENGTH,
      authenticate: (client, username, password, done) => {
        const credentials = { username: username ?? '', password: password?.toString('utf8') ?? '' };
        // The ingestor's own account costs no lookup: neither counted nor made to wait.
        const ingestor = this.isIngestor(credentials.username);
        const refusal = ingestor ? undefined : this.refusalBeforeLookup(client.id);
        if (refusal) {
          countConnect('rate_limited');
          return done(refusal, false);
        }
        const turn = ingestor ? Promise.resolve() : this.checks.take();
        if (!turn) {
          countConnect('busy');
          this.logger.debug({ clientId: client.id }, 'MQTT connect refused: too many waiting to be checked');
          return done(new ConnectRefused(SERVER_UNAVAILABLE), false);
        }
        turn
          .then(() => this.devices.authenticate(client.id, credentials.username, credentials.password))
          .finally(() => {
            if (!ingestor) this.checks.done();
          })
          .then(
            (verdict) => {
              countConnect(verdict);
              if (verdict === 'deny') {
                this.logger.debug(
                  { clientId: client.id, username: credentials.username },
                  'MQTT connect refused',
                );
                return done(null, false);
              }
              this.sessions.set(client, {
                username: credentials.username,
                superuser: verdict === 'superuser',
                publishVerdicts: new Map(),
              });
              done(null, true);
            },
            (error: unknown) => {
              countConnect('error');
              this.logger.warn(
                { clientId: client.id, err: error },
                'MQTT connect not checked: lookup failed',
              );
              done(new ConnectRefused(SERVER_UNAVAILABLE), false);
            },
          );
      },
      authorizePublish: (client, packet, done) => {
        if (!client) return done(null); // the broker's own messages
        const session = this.sessions.get(client);
        if (session?.superuser) return done(null);
        if (!session) return done(new Error('not authenticated'));
        // No device may subscribe, so a retained copy would serve no one; aedes would keep it in
        // memory, whatever its size, until the device replaced it.
        packet.retain = false;
        const cached = session.publishVerdicts.get(packet.topic);
        if (cached && Date.now() - cached.at < ACL_CACHE_TTL_MS) {
          return done(cached.allowed ? null : new Error('publish not authorized'));
        }
        this.devices.authorize(client.id, session.username, packet.topic, 'publish').then(
          (allowed) => {
            remember(session.publishVerdicts, packet.topic, allowed);
            if (!allowed) {
              this.logger.debug({ clientId: client.id, topic: packet.topic }, 'MQTT publish refused');
            }
            done(allowed ? null : new Error('publish not authorized'));
          },
          () => done(new Error('publish not authorized')),
        );
      },
      // A null subscription is a refusal: SUBACK 0x80, the client stays connected.
      authorizeSubscribe: (client, subscription, done) =>
        done(null, this.sessions.get(client)?.superuser ? subscription : null),
    };
  }

  /** Once `authorize` allows a publish on a telemetry topic, it waits for the message to be settled. */
  private thenHandOver(authorize: AuthorizePublishHandler): AuthorizePublishHandler {
    return (client, packet, done) =>
      authorize(client, packet, (error) => {
        const sink = this.telemetry;
        if (error || !client || !sink || !matchesAnyFilter(this.telemetryFilters, packet.topic)) {
          return done(error);
        }
        const message = { topic: packet.topic, payload: Buffer.from(packet.payload), receivedAt: new Date() };
        sink(message).then(
          () => done(null),
          (failure: unknown) => done(failure instanceof Error ? failure : new Error(String(failure))),
        );
      });
  }

  private isIngestor(username: string): boolean {
    return username === ingestorCredentials(this.config).username;
  }

  /**
   * A device's CONNECT refused without looking anything up: too many from this client id lately.
   * (The ingestor's account is never counted, so another client's attempts under its client id
   * cannot lock it out.)
   */
  private refusalBeforeLookup(clientId: string): ConnectRefused | undefined {
    if (!this.connectAttempts.admit(clientId)) {
      this.logger.debug({ clientId }, 'MQTT connect refused: too many attempts from this client id');
      return new ConnectRefused(SERVER_UNAVAILABLE);
    }
    return undefined;
  }

  private close(client: Client): void {
    this.clients.delete(client);
    client.close();
  }
}

function countConnect(verdict: MqttConnectVerdict): void {
  mqttConnects.inc({ verdict });
}

function remember(verdicts: Session['publishVerdicts'], topic: string, allowed: boolean): void {
  verdicts.delete(topic);
  if (verdicts.size >= ACL_CACHE_TOPICS) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(topic, { allowed, at: Date.now() });
}
