import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { ServiceUnavailableError } from '@solar/core';
import { sourceIdOfTopic } from '@solar/domain';
import {
  countLost,
  countRefusal,
  IntakeOutcome,
  messageReceived,
  messageSettled,
  TelemetryIntake,
} from '@solar/telemetry';
import { TelemetryMessage } from '../transport/telemetry-message';
import { InFlightLimit } from './in-flight-limit';
import { MessageOutcome, OutcomeCounts, OutcomeTally } from './outcome-tally';
import { retryDelay } from './retry-delay';

export const SUMMARY_INTERVAL_MS = 60_000;
/** How long shutdown waits for messages still being stored (retrying while storage is down). */
export const SETTLE_TIMEOUT_MS = 30_000;

/** What the ingestor holds unacknowledged, for the health check. */
export interface IntakeState {
  inFlight: number;
  maxInFlight: number;
  /** At the cap: no more messages are taken from the broker until one is done. */
  paused: boolean;
}

/**
 * One MQTT telemetry message, from topic to stored row: the source id from the topic, then the
 * intake every device message goes through (size, source check, JSON, ingestion).
 * `consume` resolves once the row is committed or the message is refused for good, and only
 * then is it acknowledged (to the device or to the broker). While storage is down a message
 * is retried with backoff, holding one of `MQTT_MAX_IN_FLIGHT` slots: at the cap intake stops
 * and the broker keeps the rest, so memory stays bounded.
 */
@Injectable()
export class MqttTelemetryConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MqttTelemetryConsumer.name);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly limit: InFlightLimit;
  private readonly tally = new OutcomeTally();
  private readonly giveUp = new AbortController();
  private summaryTimer: NodeJS.Timeout | undefined;
  private storageDown = false;
  private paused = false;

  constructor(
    private readonly telemetryIntake: TelemetryIntake,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // Every retrying message waits on this signal.
    setMaxListeners(0, this.giveUp.signal);
    this.limit = new InFlightLimit(config.limits.mqttMaxInFlight);
  }

  onApplicationBootstrap(): void {
    this.summaryTimer = setInterval(() => this.logSummary(), SUMMARY_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.summaryTimer);
    this.giveUp.abort(); // nothing retries past the connections' end
    this.logSummary();
  }

  /**
   * Resolves once the message is stored or refused for good (or given up at shutdown, when
   * there is no connection left to acknowledge it on); never rejects. Waits for a slot first
   * while `MQTT_MAX_IN_FLIGHT` messages are in flight.
   */
  consume(message: TelemetryMessage): Promise<void> {
    messageReceived('mqtt');
    const work: Promise<void> = this.limit
      .acquire()
      .then(() => {
        this.notePause();
        return this.process(message);
      })
      .then((outcome) => this.tally.count(outcome))
      .catch((error: unknown) => {
        this.tally.count('lost');
        countLost('mqtt');
        // Given up at shutdown: `settle` reports those in one line.
        if (!this.giveUp.signal.aborted) {
          this.logger.error({ err: error, topic: message.topic }, 'telemetry message lost');
        }
      })
      .finally(() => {
        messageSettled('mqtt');
        this.limit.release();
        this.notePause();
        this.inFlight.delete(work);
      });
    this.inFlight.add(work);
    return work;
  }

  /** Resolves once fewer than `MQTT_MAX_IN_FLIGHT` messages are in flight: the transport reads on then. */
  whenBelowCap(): Promise<void> {
    return this.limit.whenBelowCap();
  }

  intake(): IntakeState {
    return { inFlight: this.limit.count, maxInFlight: this.limit.max, paused: this.limit.full };
  }

  /** Counts since start (tests, diagnostics). */
  outcomes(): OutcomeCounts {
    return this.tally.totals();
  }

  /**
   * Shutdown, once no more messages arrive: waits for those in flight, up to 30 s, then stops
   * their retries and reports how many were lost.
   */
  async settle(timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
    if (this.inFlight.size === 0) return;
    const timeout = new AbortController();
    const settled = await Promise.race([
      Promise.allSettled([...this.inFlight]).then(() => true),
      sleep(timeoutMs, false, { signal: timeout.signal }).catch(() => false),
    ]);
    timeout.abort();
    if (settled) return;
    const lost = this.inFlight.size;
    this.giveUp.abort();
    this.logger.error({ lost }, 'shutdown: telemetry still not stored after waiting, giving it up');
  }

  private async process({ topic, payload, receivedAt }: TelemetryMessage): Promise<MessageOutcome> {
    const sunSourceId = sourceIdOfTopic(this.config.mqtt.topicPrefix, topic);
    if (!sunSourceId) {
      countRefusal('mqtt', 'not_a_source_topic');
      return 'ignored';
    }
    return this.retryWhileUnavailable(async () => {
      const outcome = await this.telemetryIntake.receive(sunSourceId, 'MQTT', payload, receivedAt);
      if (outcome.status === 'rejected') {
        this.logger.debug({ sunSourceId, reason: outcome.reason }, 'telemetry rejected');
      }
      return mqttOutcome(outcome);
    });
  }

  private async retryWhileUnavailable(attempt: () => Promise<MessageOutcome>): Promise<MessageOutcome> {
    for (let retry = 0; ; retry += 1) {
      try {
        const outcome = await attempt();
        if (retry > 0) this.storageRecovered();
        return outcome;
      } catch (error) {
        if (!(error instanceof ServiceUnavailableError)) throw error;
        this.storageFailed(error);
        // Rejects once shutdown gives up: the message counts as lost.
        await sleep(retryDelay(retry), undefined, { signal: this.giveUp.signal });
      }
    }
  }

  /** One log line when intake stops at the cap, one when it resumes. */
  private notePause(): void {
    if (this.limit.full === this.paused) return;
    this.paused = this.limit.full;
    const inFlight = this.limit.count;
    if (this.paused) this.logger.warn({ inFlight }, 'MQTT intake paused at the in-flight cap');
    else this.logger.log({ inFlight }, 'MQTT intake resumed below the in-flight cap');
  }

  private storageFailed(error: ServiceUnavailableError): void {
    if (this.storageDown) return;
    this.storageDown = true;
    this.logger.warn(
      { err: error.cause ?? error },
      'telemetry storage unavailable: retrying messages with backoff',
    );
  }

  private storageRecovered(): void {
    if (!this.storageDown) return;
    this.storageDown = false;
    this.logger.log('telemetry storage available again');
  }

  private logSummary(): void {
    const counts = this.tally.takeSummary();
    if (counts) this.logger.log({ ...counts, inFlight: this.limit.count }, 'mqtt telemetry summary');
  }
}

/**
 * What the tally counts. The broker acknowledges all of these: a message that is `unknown` or
 * `refused` (its source gone, off or of the other transport) is dropped for good, not retried.
 */
function mqttOutcome(outcome: IntakeOutcome): MessageOutcome {
  switch (outcome.status) {
    case 'unknown':
    case 'refused':
      return 'ignored';
    default:
      return outcome.status;
  }
}
