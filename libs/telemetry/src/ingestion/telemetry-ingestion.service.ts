import { Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import { ServiceUnavailableError } from '@solar/core';
import { ConnectionType } from '@solar/domain';
import { normalizeTelemetry, TelemetryRejection } from '../normalize';
import { TelemetryValues } from '../telemetry-fields';
import { StoredNeighbours } from '../storage/stored-neighbours';
import { TelemetryWriter } from '../storage/telemetry-writer';
import { stageTook } from './intake-metrics';
import {
  Admission,
  AdmissionMode,
  IMPORTED_ROW,
  isBeyondMemory,
  Sender,
  TelemetryWindows,
} from './telemetry-windows';

export type IngestOutcome =
  | { status: 'stored' }
  | { status: 'throttled' }
  | { status: 'duplicate' }
  /** The source sent more messages than its budget allows in the current window. */
  | { status: 'overBudget'; retryAfterSeconds: number }
  /** The source was revoked (gone, switched off, or no longer of this transport) as it was written. */
  | { status: 'refused' }
  | { status: 'rejected'; reason: TelemetryRejection | 'unstorable'; message: string };

export const UNSTORABLE_TEXT =
  'Payload contains characters that cannot be stored (NUL or unpaired surrogates)';
export const UNSTORABLE_VALUES = 'Payload values cannot be stored';
export const TOO_DEEP = 'Payload nested too deeply';
export const NOT_STORED = 'Telemetry could not be stored. Retry later.';
export const SOURCE_OVER_BUDGET = 'Too many messages for this source. Try again later.';
/** PostgreSQL parses jsonb recursively; a payload nested deeper than this is not worth a stack. */
const MAX_RAW_DEPTH = 32;

/**
 * The path every message takes, whatever channel brought it: normalize, the arrival budget and
 * the duplicate and throttle windows, for an old timestamp the stored rows around it, then the
 * batched write. A message counts as stored only once committed; if the write fails the windows
 * forget it and the caller is told to retry.
 */
@Injectable()
export class TelemetryIngestion {
  constructor(
    private readonly windows: TelemetryWindows,
    private readonly writer: TelemetryWriter,
    private readonly neighbours: StoredNeighbours,
  ) {}

  /**
   * `via`: the device transport the message came by; the row is then stored only while the
   * source is active and of that type, whatever the caller's cache said a moment before.
   * `mode`: `history` for a row of an owner's import (see `AdmissionMode`).
   */
  async ingest(
    sunSourceId: string,
    payload: unknown,
    receivedAt: Date,
    via?: ConnectionType,
    mode: AdmissionMode = 'device',
  ): Promise<IngestOutcome> {
    const normalized = normalizeTelemetry(payload, receivedAt);
    if (!normalized.ok) return { status: 'rejected', reason: normalized.reason, message: normalized.message };

    const { values, raw } = normalized.telemetry;
    const unstorable = unstorableReason(raw);
    if (unstorable) return { status: 'rejected', reason: 'unstorable', message: unstorable };
    const ts = normalized.telemetry.timestamp ?? receivedAt;
    // An imported row sets no duplicate marker, so it is not worth a hash.
    const sender: Sender =
      mode === 'history' ? IMPORTED_ROW : { mode, fingerprint: fingerprintOf(ts, values) };
    let admission: Exclude<Admission, { status: 'resent' }>;
    try {
      const admitStartedAt = performance.now();
      const verdict = await this.windows.admit(sunSourceId, ts, receivedAt, sender);
      stageTook('windows', admitStartedAt);
      admission =
        verdict.status === 'duplicate' || verdict.status === 'resent'
          ? await this.settleSeen(verdict.status, sunSourceId, ts, receivedAt, mode)
          : verdict;
    } catch (error) {
      throw new ServiceUnavailableError(NOT_STORED, { cause: error });
    }
    if (admission.status !== 'admitted') return admission;

    const withdraw = (error: unknown) => this.withdraw(sunSourceId, ts, sender, error);
    if (admission.beyondMemory) {
      const neighbour = await this.neighbours.of(sunSourceId, ts).catch(withdraw);
      if (neighbour !== 'none') {
        await this.windows.release(sunSourceId, ts).catch(() => undefined);
        // A row at this very timestamp: a resend, as the write's ON CONFLICT would have found.
        return { status: neighbour === 'same' ? 'duplicate' : 'throttled' };
      }
    }

    const writeStartedAt = performance.now();
    const written = await this.writer
      .write({ sunSourceId, ts, receivedAt, values, raw, via })
      .catch(withdraw);
    stageTook('write', writeStartedAt);
    // Nothing stored: the windows must not hold it against the source (switched on again, or a
    // corrected message for the same moment).
    if (written === 'refused' || written === 'unstorable') {
      await this.windows.withdraw(sunSourceId, ts, sender).catch(() => undefined);
    }
    // Left in place if this fails, the entry only throttles its neighbours until it expires.
    else if (admission.beyondMemory) await this.windows.release(sunSourceId, ts).catch(() => undefined);
    if (written === 'unstorable')
      return { status: 'rejected', reason: 'unstorable', message: UNSTORABLE_VALUES };
    // A duplicate although admitted: that source and timestamp were stored before the windows saw it.
    return { status: written };
  }

  /**
   * What the windows remember of this timestamp may never have been committed: the process that
   * admitted it was killed before its write. The sender (or the broker) then resends it, never
   * acknowledged, and must not be told "duplicate" or "throttled" for a row that is not there.
   */
  private async settleSeen(
    seen: 'duplicate' | 'resent',
    sunSourceId: string,
    ts: Date,
    receivedAt: Date,
    mode: AdmissionMode,
  ): Promise<Exclude<Admission, { status: 'resent' }>> {
    if (!(await this.writer.isStored(sunSourceId, ts))) {
      return { status: 'admitted', beyondMemory: isBeyondMemory(ts, receivedAt) };
    }
    // An imported row at a stored row's very timestamp is a re-import, as for old timestamps.
    return { status: seen === 'duplicate' || mode === 'history' ? 'duplicate' : 'throttled' };
  }

  /** The message was admitted but cannot be settled: forget it, so the device's retry is stored. */
  private async withdraw(sunSourceId: string, ts: Date, sender: Sender, error: unknown): Promise<never> {
    await this.windows.withdraw(sunSourceId, ts, sender).catch(() => undefined);
    throw new ServiceUnavailableError(NOT_STORED, { cause: error });
  }
}

/**
 * What jsonb would refuse, failing the whole batch: NUL characters and unpaired surrogates in
 * keys or values, and nesting deep enough to exhaust PostgreSQL's parser stack.
 */
function unstorableReason(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    return value.isWellFormed() && !value.includes('\u0000') ? undefined : UNSTORABLE_TEXT;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_RAW_DEPTH) return TOO_DEEP;
  // Own keys, as Object.entries would give them, without an array of pairs per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const problem =
      unstorableReason(key) ?? unstorableReason((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** Same timestamp and same normalized values: the identity of a duplicate. */
function fingerprintOf(ts: Date, values: TelemetryValues): string {
  return hash('sha256', JSON.stringify([ts.getTime(), values]), 'base64url');
}
