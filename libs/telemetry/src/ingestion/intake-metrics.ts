import { ConnectionType } from '@solar/domain';
import {
  MESSAGE_OUTCOMES,
  MessageOutcome,
  RefusalReason,
  TELEMETRY_CHANNELS,
  TelemetryChannel,
  TelemetryStage,
  telemetryInFlight,
  telemetryMessages,
  telemetryRefusals,
  telemetryStageDuration,
} from '@solar/monitoring';
import type { IntakeOutcome } from './telemetry-intake';

type Increment = { inc(): void };

/** Each channel's outcome series, bound once: a message costs one increment, no label object. */
const outcomes = Object.fromEntries(
  TELEMETRY_CHANNELS.map((channel) => [
    channel,
    Object.fromEntries(
      MESSAGE_OUTCOMES.map((outcome) => [outcome, telemetryMessages.labels(channel, outcome)]),
    ),
  ]),
) as Record<TelemetryChannel, Record<MessageOutcome, Increment>>;

/** Each step's series, bound once as the outcomes are. */
const stages: Record<TelemetryStage, { observe(seconds: number): void }> = {
  source: telemetryStageDuration.labels('source'),
  windows: telemetryStageDuration.labels('windows'),
  write: telemetryStageDuration.labels('write'),
};

/** A message waited on `stage` since `startedAt` (`performance.now()`). */
export function stageTook(stage: TelemetryStage, startedAt: number): void {
  stages[stage].observe((performance.now() - startedAt) / 1000);
}

/** Messages each channel holds (received, not yet answered or acknowledged): read at scrape time. */
const inFlight: Record<TelemetryChannel, number> = { webhook: 0, mqtt: 0 };
telemetryInFlight.report(() =>
  TELEMETRY_CHANNELS.map((channel) => ({ labels: { channel }, value: inFlight[channel] })),
);

export const channelOf = (via: ConnectionType): TelemetryChannel => (via === 'MQTT' ? 'mqtt' : 'webhook');

/** A message taken by a channel; `messageSettled` once it is answered or acknowledged. */
export function messageReceived(channel: TelemetryChannel): void {
  inFlight[channel] += 1;
}

export function messageSettled(channel: TelemetryChannel): void {
  inFlight[channel] -= 1;
}

/** The intake's final word on a message, in `solar_telemetry_messages_total` (and why, if refused). */
export function countIntakeOutcome(channel: TelemetryChannel, outcome: IntakeOutcome): void {
  switch (outcome.status) {
    case 'stored':
    case 'throttled':
    case 'duplicate':
      return outcomes[channel][outcome.status].inc();
    case 'overBudget':
      return countRefusal(channel, 'over_budget');
    case 'rejected':
      return countRefusal(channel, outcome.reason);
    case 'unknown':
      return countRefusal(channel, 'unknown_source');
    case 'refused':
      return countRefusal(channel, 'revoked');
  }
}

export function countRefusal(channel: TelemetryChannel, reason: RefusalReason): void {
  outcomes[channel].refused.inc();
  telemetryRefusals.inc({ channel, reason });
}

/** Not stored because storage failed: answered 503 (or 500), or given up at shutdown. */
export function countLost(channel: TelemetryChannel): void {
  outcomes[channel].lost.inc();
}
