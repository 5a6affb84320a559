import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '@solar/core';
import { SunSourcesService, SunSourceView } from '@solar/domain';
import {
  TelemetryIngestion,
  THROTTLE_WINDOW_MS,
  normalizeTelemetry,
  MAX_BATCH,
  TelemetryWriter,
  TelemetryPoint,
} from '@solar/telemetry';
import { LatestReadingRepository } from './latest-reading.repository';
import { SyntheticDevice, SyntheticReading, SyntheticStartState, syntheticSeries } from './synthetic-device';
import { seedFromText } from './synthetic-noise';
import { LiveGeneratorStatus, SyntheticRuns } from './synthetic-runs';

/** 30 days of synthetic data, 8,640 points at 5-minute spacing. */
export const SYNTHETIC_HISTORY_POINTS = 8_640;
export const SYNTHETIC_HISTORY_STEP_MS = 5 * 60_000;
/**
 * One live message every 10 s: the throttle stores at most one message per source per 10 s of
 * device time, so a faster generator would only produce throttled messages.
 */
export const LIVE_INTERVAL_MS = THROTTLE_WINDOW_MS;
/** A run whose owner has not beaten for this long is dead (its process went away). */
const HEARTBEAT_TIMEOUT_MS = 3 * LIVE_INTERVAL_MS;

/** A live generator whose timer lives in this process. */
interface LiveRun {
  sunSourceId: string;
  runId: string;
  source: Pick<SunSourceView, 'latitude' | 'longitude' | 'installedCapacityWatts' | 'orientation'>;
  device?: SyntheticDevice;
  /** Timestamp of the last message sent (ms), so the next one is at least 10 s later. */
  lastAt?: number;
  timer?: NodeJS.Timeout;
  tick?: Promise<void>;
  halted: boolean;
}

/**
 * Synthetic telemetry for trying the service without hardware (Admin+ only):
 * a 30-day history written at once, and live generators that publish like a device would.
 */
@Injectable()
export class SyntheticTelemetryService implements OnModuleDestroy {
  private readonly logger = new Logger(SyntheticTelemetryService.name);
  private readonly local = new Map<string, LiveRun>();

  constructor(
    private readonly sources: SunSourcesService,
    private readonly writer: TelemetryWriter,
    private readonly ingestion: TelemetryIngestion,
    private readonly runs: SyntheticRuns,
    private readonly latest: LatestReadingRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes 30 days of readings ending now (aligned to 5 minutes) straight to storage: they are
   * 5 minutes apart, so the throttle has nothing to say, and one INSERT per batch is what a bulk
   * load wants. Returns how many were stored: timestamps stored before are skipped.
   */
  async generate(ownerId: string, sunSourceId: string): Promise<number> {
    const source = await this.ownedSource(ownerId, sunSourceId);
    const receivedAt = this.clock.now();
    const end = Math.floor(receivedAt.getTime() / SYNTHETIC_HISTORY_STEP_MS) * SYNTHETIC_HISTORY_STEP_MS;
    const readings = syntheticSeries({
      ...systemOf(source),
      seed: seedFromText(sunSourceId),
      start: new Date(end - (SYNTHETIC_HISTORY_POINTS - 1) * SYNTHETIC_HISTORY_STEP_MS),
      end: new Date(end),
      stepMinutes: SYNTHETIC_HISTORY_STEP_MS / 60_000,
    });

    let stored = 0;
    // One batch at a time: each is a single INSERT of MAX_BATCH rows, and the pool stays free for
    // everyone else's requests meanwhile.
    for (let offset = 0; offset < readings.length; offset += MAX_BATCH) {
      const batch = readings.slice(offset, offset + MAX_BATCH);
      const results = await Promise.all(
        batch.map((reading) => this.writer.write(toPoint(sunSourceId, reading, receivedAt))),
      );
      stored += results.filter((result) => result === 'stored').length;
    }
    return stored;
  }

  /** Starts the source's live generator, here, unless one runs (here or on another instance). */
  async start(ownerId: string, sunSourceId: string): Promise<LiveGeneratorStatus> {
    const source = await this.ownedSource(ownerId, sunSourceId);
    const now = this.clock.now();
    const runId = randomUUID();
    const { created, status } = await this.runs.start(sunSourceId, runId, now, this.staleBefore());
    if (created) this.launch({ sunSourceId, runId, source, halted: false });
    return status;
  }

  /** Stops it: at once when it runs here, at its next tick when it runs on another instance. */
  async stop(ownerId: string, sunSourceId: string): Promise<LiveGeneratorStatus> {
    await this.ownedSource(ownerId, sunSourceId);
    const run = this.local.get(sunSourceId);
    if (run) await this.halt(run);
    await this.runs.stop(sunSourceId);
    return this.runs.status(sunSourceId, this.staleBefore());
  }

  async status(ownerId: string, sunSourceId: string): Promise<LiveGeneratorStatus> {
    await this.ownedSource(ownerId, sunSourceId);
    return this.runs.status(sunSourceId, this.staleBefore());
  }

  /** Shutdown: this process's generators end with it, and say so, while Redis is still open. */
  async onModuleDestroy(): Promise<void> {
    const runs = [...this.local.values()];
    await Promise.all(runs.map((run) => this.halt(run)));
    await Promise.all(
      runs.map((run) =>
        this.runs.stop(run.sunSourceId, run.runId).catch((error: unknown) => {
          this.logger.warn({ err: error, sunSourceId: run.sunSourceId }, 'could not mark generator stopped');
        }),
      ),
    );
  }

  private launch(run: LiveRun): void {
    const previous = this.local.get(run.sunSourceId);
    if (previous) void this.halt(previous);
    this.local.set(run.sunSourceId, run);
    // The first message goes out at once, then one every interval.
    this.schedule(run, 0);
  }

  private schedule(run: LiveRun, delay: number): void {
    run.timer = setTimeout(() => {
      run.tick = this.tick(run).finally(() => {
        run.tick = undefined;
        if (!run.halted) this.schedule(run, LIVE_INTERVAL_MS);
      });
    }, delay);
    run.timer.unref();
  }

  private async tick(run: LiveRun): Promise<void> {
    try {
      if (!(await this.runs.shouldRun(run.sunSourceId, run.runId))) {
        this.forget(run);
        return;
      }
      const device = (run.device ??= await this.continueDevice(run));
      const now = this.clock.now();
      // On the 10-second grid, and never within 10 s of the previous message (the throttle).
      let at = Math.floor(now.getTime() / LIVE_INTERVAL_MS) * LIVE_INTERVAL_MS;
      if (run.lastAt !== undefined && at < run.lastAt + LIVE_INTERVAL_MS) at = run.lastAt + LIVE_INTERVAL_MS;
      run.lastAt = at;
      const reading = device.next(new Date(at));
      const outcome = await this.ingestion.ingest(run.sunSourceId, reading, now);
      if (outcome.status !== 'stored') {
        this.logger.debug({ sunSourceId: run.sunSourceId, outcome }, 'synthetic message not stored');
      }
      if (!(await this.runs.recordMessage(run.sunSourceId, run.runId, this.clock.now()))) this.forget(run);
    } catch (error) {
      // Redis or the database away for a moment: try again at the next tick.
      this.logger.warn({ err: error, sunSourceId: run.sunSourceId }, 'synthetic message failed');
    }
  }

  /** A device that picks up the source's latest stored state, so the data has no seams. */
  private async continueDevice(run: LiveRun): Promise<SyntheticDevice> {
    const latest = await this.latest.find(run.sunSourceId);
    const now = this.clock.now().getTime();
    // A reading from a clock running ahead is no place to continue from.
    const usable: SyntheticStartState | undefined =
      latest && latest.at && latest.at.getTime() <= now ? latest : undefined;
    if (usable?.at) run.lastAt = usable.at.getTime();
    return new SyntheticDevice(
      { ...systemOf(run.source), seed: seedFromText(run.sunSourceId) },
      LIVE_INTERVAL_MS,
      usable,
    );
  }

  /** Stops the timer and waits for a message under way, so nothing is stored after this returns. */
  private async halt(run: LiveRun): Promise<void> {
    run.halted = true;
    clearTimeout(run.timer);
    this.forget(run);
    await run.tick;
  }

  private forget(run: LiveRun): void {
    run.halted = true;
    if (this.local.get(run.sunSourceId) === run) this.local.delete(run.sunSourceId);
  }

  private staleBefore(): Date {
    return new Date(this.clock.now().getTime() - HEARTBEAT_TIMEOUT_MS);
  }

  /** The owner's source; another user's, or none, is NotFoundError. */
  private ownedSource(ownerId: string, sunSourceId: string): Promise<SunSourceView> {
    return this.sources.get(ownerId, sunSourceId);
  }
}

function systemOf(
  source: Pick<SunSourceView, 'latitude' | 'longitude' | 'installedCapacityWatts' | 'orientation'>,
) {
  return {
    latitude: source.latitude,
    longitude: source.longitude,
    capacityWatts: source.installedCapacityWatts,
    orientation: source.orientation ?? null,
  };
}

/** The point the normal path would store for this payload: same normalization, same raw. */
function toPoint(sunSourceId: string, reading: SyntheticReading, receivedAt: Date): TelemetryPoint {
  const normalized = normalizeTelemetry(reading, receivedAt);
  if (!normalized.ok) throw new Error(`synthetic reading refused: ${normalized.message}`);
  const { values, raw } = normalized.telemetry;
  return { sunSourceId, ts: normalized.telemetry.timestamp ?? receivedAt, receivedAt, values, raw };
}
