import { MqttContext, MqttOptions, ServerMqtt } from '@nestjs/microservices';
import { IClientOptions, MqttClient } from 'mqtt';
import type { Duplex } from 'node:stream';
import { hostname } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppConfig } from '@solar/config';
import { ingestorCredentials } from '@solar/domain';
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
 */
export class TelemetryMqttServer extends ServerMqtt {
  private readonly filters: string[];
  private stopped = false;
  private inProcessBroker: (() => Duplex) | undefined;

  constructor(
    private readonly clientOptions: TransportOptions,
    subscription: TelemetrySubscription,
  ) {
    super(clientOptions);
    this.filters = telemetryTopicFilters(subscription);
  }

  /** The privileged ingestor account of the configuration, clean session, QoS 1 (SPEC.md §1). */
  static fromConfig(config: AppConfig): TelemetryMqttServer {
    const { username, password } = ingestorCredentials(config);
    // The embedded broker (aedes) has no shared subscriptions; it serves a single ingestor anyway.
    const sharedGroup = config.mqtt.embeddedBroker ? undefined : config.mqtt.sharedGroup;
    return new TelemetryMqttServer(
      {
        url: config.mqtt.url,
        username,
        password,
        clientId: ingestorClientId(sharedGroup, hostname(), process.pid),
        clean: true,
        // A broker that asks the api (EMQX) refuses us while the api is still starting: keep trying.
        reconnectOnConnackError: true,
      },
      { topicPrefix: config.mqtt.topicPrefix, sharedGroup },
    );
  }

  /**
   * `EMBEDDED_BROKER=true`: reach the broker through memory instead of a loopback socket, and
   * subscribe at QoS 0. Broker and ingestor live and die together, so acknowledgements between
   * them would guard against nothing; devices still publish at QoS 1 and are acknowledged by
   * the broker as before.
   */
  useInProcessBroker(connect: () => Duplex): void {
    this.inProcessBroker = connect;
  }

  override createMqttClient(): MqttClient {
    const connect = this.inProcessBroker;
    if (!connect) return super.createMqttClient();
    const { url: _url, ...options } = this.clientOptions;
    return new MqttClient(connect, options as IClientOptions);
  }

  override bindEvents(client: MqttClient): void {
    client.on('message', this.getMessageHandler(client));
    const qos = this.inProcessBroker ? 0 : 1;
    client.subscribe(this.filters, { qos }, (error, granted) => {
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
    await this.handleEvent(
      TELEMETRY_MESSAGE,
      { pattern: TELEMETRY_MESSAGE, data },
      new MqttContext([topic, packet]),
    );
  }

  /** Nest tries `JSON.parse` on every pattern and catches the throw: our one pattern skips that, per message. */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern === TELEMETRY_MESSAGE ? TELEMETRY_MESSAGE : super.getRouteFromPattern(pattern);
  }

  /**
   * Stops the flow at the broker (UNSUBSCRIBE, then a clean DISCONNECT). Every message the broker
   * sent before its UNSUBACK has been received by then; one more turn of the event loop lets Nest
   * hand each to the handler (it does so through promise callbacks only), where it is tracked.
   */
  async stopReceiving(): Promise<void> {
    const client = this.mqttClient as MqttClient | undefined;
    if (!client || this.stopped) return;
    this.stopped = true;
    if (client.connected) {
      await within(client.unsubscribeAsync(this.filters), STOP_TIMEOUT_MS).catch((error: unknown) =>
        this.logger.warn(`MQTT unsubscribe failed: ${String(error)}`),
      );
    }
    await within(client.endAsync(), STOP_TIMEOUT_MS).catch(() => client.end(true));
    await nextTurn();
  }
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the broker within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
