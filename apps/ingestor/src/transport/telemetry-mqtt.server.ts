import { MqttContext, MqttOptions, ServerMqtt } from '@nestjs/microservices';
import { IClientOptions, MqttClient } from 'mqtt';
import type { Duplex } from 'node:stream';
import { hostname } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppConfig } from '@solar/config';
import { ingestorCredentials } from '@solar/domain';
import { DeferredPubacks } from './deferred-pubacks';
import { ingestorClientId } from './ingestor-client-id';
import { TELEMETRY_MESSAGE, TelemetryMessage } from './telemetry-message';
import { matchesAnyFilter, TelemetrySubscription, telemetryTopicFilters } from './telemetry-topics';

type TransportOptions = Required<MqttOptions>['options'] & Pick<IClientOptions, 'reconnectOnConnackError'>;

const STOP_TIMEOUT_MS = 5000;

/**
 * Nest's MQTT transport, narrowed to telemetry: it subscribes (QoS 1) to the configured topic
 * filters instead of the handlers' patterns, and hands every message on them, as raw bytes, to
 * the one `TELEMETRY_MESSAGE` handler. Nest's own JSON parsing and request/reply protocol never
 * see device payloads. Other topics are ignored.
 *
 * A message is acknowledged to the broker only once the handler has settled it (stored or
 * refused for good), while the client goes on reading (`DeferredPubacks`); at the in-flight cap
 * it stops reading and the broker keeps the rest.
 */
export class TelemetryMqttServer extends ServerMqtt {
  private readonly filters: string[];
  /** At a stop the subscription stays, so that the broker queues for this session until it returns. */
  private readonly keepsSubscription: boolean;
  private stopped = false;
  private inProcessBroker: (() => Duplex) | undefined;
  private mayReadOn: () => Promise<void> = () => Promise.resolve();
  private acks: DeferredPubacks | undefined;

  constructor(
    private readonly clientOptions: TransportOptions,
    subscription: TelemetrySubscription,
  ) {
    super(clientOptions);
    this.filters = telemetryTopicFilters(subscription);
    this.keepsSubscription = clientOptions.clean === false && !subscription.sharedGroup;
  }

  /**
   * The privileged ingestor account of the configuration, QoS 1, in a session the broker keeps
   * while the ingestor is away (clean: false) under a client id that stays the same across its
   * restarts and differs between replicas (`ingestorClientId`). What it had received and not
   * acknowledged, and what the broker queued for it meanwhile, is delivered when it comes back:
   * alone, and as a member of a shared group after a crash. The embedded broker hands messages
   * over in process, where there is nothing to keep. Guarantees: docs/scaling.md.
   */
  static fromConfig(config: AppConfig): TelemetryMqttServer {
    const { username, password } = ingestorCredentials(config);
    // The embedded broker (aedes) has no shared subscriptions; it serves a single ingestor anyway.
    const sharedGroup = config.mqtt.embeddedBroker ? undefined : config.mqtt.sharedGroup;
    return new TelemetryMqttServer(
      {
        url: config.mqtt.url,
        username,
        password,
        clientId: ingestorClientId({ ...config.mqtt, sharedGroup }, hostname()),
        clean: config.mqtt.embeddedBroker,
        // A broker that asks the api (EMQX) refuses us while the api is still starting: keep trying.
        reconnectOnConnackError: true,
      },
      { topicPrefix: config.mqtt.topicPrefix, sharedGroup },
    );
  }

  /**
   * `EMBEDDED_BROKER=true`: reach the broker through memory instead of a loopback socket, and
   * subscribe to nothing: the embedded broker hands each device message to the consumer itself
   * before acknowledging it to the device (see `EmbeddedBroker`). The connection remains what
   * the health check reports on.
   */
  useInProcessBroker(connect: () => Duplex): void {
    this.inProcessBroker = connect;
  }

  /** Reading from the broker goes on only once this resolves (the in-flight cap). */
  readOnlyWhen(mayReadOn: () => Promise<void>): void {
    this.mayReadOn = mayReadOn;
  }

  override createMqttClient(): MqttClient {
    const connect = this.inProcessBroker;
    const { url: _url, ...options } = this.clientOptions;
    const client = connect ? new MqttClient(connect, options as IClientOptions) : super.createMqttClient();
    this.acks = new DeferredPubacks(client, () => this.mayReadOn());
    return client;
  }

  override bindEvents(client: MqttClient): void {
    if (this.inProcessBroker) return;
    client.on('message', this.getMessageHandler(client));
    client.subscribe(this.filters, { qos: 1 }, (error, granted) => {
      const refused = (granted ?? []).filter((grant) => grant.qos === 128).map((grant) => grant.topic);
      if (error || refused.length > 0) {
        this.logger.error(`MQTT subscription failed: ${error?.message ?? `refused ${refused.join(', ')}`}`);
      }
    });
  }

  override async handleMessage(
    topic: string,
    payload: Buffer,
    _client: MqttClient,
    packet: Record<string, unknown> = {},
  ): Promise<void> {
    if (!matchesAnyFilter(this.filters, topic)) return;
    const data: TelemetryMessage = { topic, payload, receivedAt: new Date() };
    const settled = this.handleEvent(
      TELEMETRY_MESSAGE,
      { pattern: TELEMETRY_MESSAGE, data },
      new MqttContext([topic, packet]),
    );
    // Synchronously, before mqtt.js writes the PUBACK that follows this event.
    this.acks?.hold(packet as { qos: 0 | 1 | 2; messageId?: number }, settled);
    await settled;
  }

  /** Nest tries `JSON.parse` on every pattern and catches the throw: our one pattern skips that, per message. */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern === TELEMETRY_MESSAGE ? TELEMETRY_MESSAGE : super.getRouteFromPattern(pattern);
  }

  /**
   * Stops the flow, then DISCONNECTs. Alone, in a kept session, by no longer reading: the
   * subscription must outlive the process, so that the broker queues what arrives until the
   * restart; what was sent and not read is redelivered then. Otherwise by UNSUBSCRIBE: in a
   * shared group the other members take the whole stream from then on, and every message the
   * broker sent before its UNSUBACK has been received by then. One more turn of the event loop
   * lets Nest hand each message read to the handler (through promise callbacks only), where it
   * is tracked. Before disconnecting, the messages in hand get a few seconds to be settled so
   * that their PUBACKs still go out; the broker redelivers any others when this session returns
   * (answered as duplicates if they were stored meanwhile).
   */
  async stopReceiving(): Promise<void> {
    const client = this.mqttClient as MqttClient | undefined;
    if (!client || this.stopped) return;
    this.stopped = true;
    if (client.connected) {
      if (this.keepsSubscription) {
        this.mayReadOn = () => new Promise<void>(() => undefined);
      } else {
        await within(client.unsubscribeAsync(this.filters), STOP_TIMEOUT_MS).catch((error: unknown) =>
          this.logger.warn(`MQTT unsubscribe failed: ${String(error)}`),
        );
      }
      await nextTurn();
      await this.acknowledged(STOP_TIMEOUT_MS);
    }
    await within(client.endAsync(), STOP_TIMEOUT_MS).catch(() => client.end(true));
    await nextTurn();
  }

  private async acknowledged(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.acks?.waiting ?? 0) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the broker within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
