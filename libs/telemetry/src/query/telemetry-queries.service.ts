import { Injectable } from '@nestjs/common';
import { encodeJson, EncodedJson, JsonArrayStream } from '@solar/database';
import { BadRequestError, Clock, NotFoundError } from '@solar/core';
import { SourceAccessCache, SunSourcesService } from '@solar/domain';
import { weeklySummaries } from './daily-summary';
import { SunSourceMetrics } from './sun-source-metrics';
import { HourlyRow, TelemetryQueryRepository, TimeRange } from './telemetry-query.repository';
import { buildReport } from './telemetry-report';

const HOUR = 3_600_000;

/** The answer for a source that has stored nothing yet. */
const NO_TELEMETRY_YET = 'No telemetry for this source yet';
const DAY = 24 * HOUR;

/** Runs `check` and `then` at once; settles as `await check` followed by `await then()` would. */
async function inOrder<C, T>(check: Promise<C>, then: () => Promise<T>): Promise<[C, T]> {
  const [checked, answered] = await Promise.allSettled([check, Promise.resolve().then(then)]);
  if (checked.status === 'rejected') throw checked.reason;
  if (answered.status === 'rejected') throw answered.reason;
  return [checked.value, answered.value];
}

/**
 * Query limits: the longest ranges in days, the range above which a summary goes weekly, and the
 * most sources per batch.
 */
export const QueryLimits = {
  aggregatedRangeDays: 90,
  dailySummaryRangeDays: 400,
  weeklyAboveDays: 60,
  batchLatestSources: 50,
} as const;

export const REPORT_PERIODS = ['today', 'yesterday', 'week', 'custom'] as const;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];

export interface RequestedRange {
  start?: Date;
  end?: Date;
}

export interface SourceStatistics {
  sunSourceId: string;
  name: string;
  messageCount: number;
  lastMessageTime: string | null;
  latestMetrics: SunSourceMetrics | null;
}

/** Today (UTC) up to now: its hours, oldest first, and the energy of the day so far. */
export interface TodaySoFar {
  /** UTC midnight starting today. */
  start: string;
  /** Now. */
  end: string;
  hours: HourlyRow[];
  /** As the daily summary counts it; null when the source reports no energy counter. */
  energyProducedKwh: number | null;
}

export interface RawPayload {
  timestamp: string;
  receivedAt: string;
  payload: Record<string, unknown>;
}

/**
 * The questions an owner asks of stored telemetry. Every method checks that
 * the source is the caller's first: another user's source is "not found".
 */
@Injectable()
export class TelemetryQueries {
  constructor(
    private readonly telemetry: TelemetryQueryRepository,
    private readonly sources: SunSourcesService,
    private readonly access: SourceAccessCache,
    private readonly clock: Clock,
  ) {}

  async latest(ownerId: string, sunSourceId: string): Promise<SunSourceMetrics> {
    return this.whenOwned(ownerId, sunSourceId, () => this.latestOf(sunSourceId));
  }

  /** Newest first; the window defaults to the last 24 hours. */
  async history(
    ownerId: string,
    sunSourceId: string,
    requested: RequestedRange,
    limit: number,
  ): Promise<JsonArrayStream> {
    return this.whenOwned(ownerId, sunSourceId, () => this.historyOf(sunSourceId, requested, limit));
  }

  /** For a caller who may see this source without owning it (public sharing checked it). */
  async latestOf(sunSourceId: string): Promise<SunSourceMetrics> {
    const row = await this.telemetry.latest(sunSourceId);
    if (!row) throw new NotFoundError(NO_TELEMETRY_YET);
    return row;
  }

  /** For a caller who may see this source without owning it (public sharing checked it). */
  async historyOf(sunSourceId: string, requested: RequestedRange, limit: number): Promise<JsonArrayStream> {
    const range = this.range(requested, DAY);
    return this.telemetry.history(sunSourceId, range, limit);
  }

  /**
   * Today so far, from the same hourly and daily queries as the owner's aggregates and daily
   * summary; for a caller who may see this source without owning it (public sharing checked it).
   */
  async todayOf(sunSourceId: string): Promise<TodaySoFar> {
    const { start, end } = this.todaySoFar();
    const [hours, energyProducedKwh] = await Promise.all([
      this.telemetry.hourly(sunSourceId, { start, end }),
      this.energyTodayOf(sunSourceId),
    ]);
    return {
      start: start.toISOString(),
      end: end.toISOString(),
      hours: JSON.parse(hours.toString('utf8')) as HourlyRow[],
      energyProducedKwh,
    };
  }

  /** Today's energy produced so far (kWh), as the daily summary counts it; null without a reading. */
  async energyTodayOf(sunSourceId: string): Promise<number | null> {
    const [today] = await this.telemetry.daily(sunSourceId, this.todaySoFar());
    return today?.energyProduced ?? null;
  }

  /** From today's UTC midnight to now. */
  private todaySoFar(): TimeRange {
    const end = this.clock.now();
    return { start: new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate())), end };
  }

  /** Hourly buckets, oldest first; a range over 90 days keeps its last 90 days. */
  async aggregated(
    ownerId: string,
    sunSourceId: string,
    requested: RequestedRange,
  ): Promise<JsonArrayStream> {
    return this.whenOwned(ownerId, sunSourceId, async () => {
      const range = this.range(requested, 7 * DAY);
      const longest = QueryLimits.aggregatedRangeDays * DAY;
      if (range.end.getTime() - range.start.getTime() > longest)
        range.start = new Date(range.end.getTime() - longest);
      return this.telemetry.streamHourly(sunSourceId, range);
    });
  }

  /** UTC days, or ISO weeks when the range exceeds 60 days; at most 400 days. */
  async dailySummary(ownerId: string, sunSourceId: string, requested: RequestedRange): Promise<EncodedJson> {
    return this.whenOwned(ownerId, sunSourceId, async () => {
      const range = this.range(requested, 7 * DAY);
      const length = range.end.getTime() - range.start.getTime();
      if (length > QueryLimits.dailySummaryRangeDays * DAY)
        throw new BadRequestError('Range exceeds 400 days');
      if (length <= QueryLimits.weeklyAboveDays * DAY)
        return this.telemetry.dailySummaries(sunSourceId, range);
      return encodeJson(weeklySummaries(await this.telemetry.daily(sunSourceId, range)));
    });
  }

  /** The latest point of each of the caller's sources that reports fault or warning codes. */
  async faults(ownerId: string): Promise<SunSourceMetrics[]> {
    const latest = await this.telemetry.latestOfOwned(ownerId);
    return latest.filter((row) => (row.faultCodes?.length ?? 0) > 0 || (row.warningCodes?.length ?? 0) > 0);
  }

  /** Other users' ids and sources without data are simply absent from the answer. */
  async batchLatest(ownerId: string, ids: string[]): Promise<EncodedJson> {
    if (ids.length > QueryLimits.batchLatestSources) throw new BadRequestError('At most 50 source ids');
    if (ids.length === 0) return encodeJson({});
    return this.telemetry.latestByIdOfOwned(ownerId, [...new Set(ids)]);
  }

  async report(
    ownerId: string,
    sunSourceId: string,
    period: ReportPeriod,
    custom: RequestedRange,
  ): Promise<EncodedJson> {
    const heading = this.access.ownedHeading(ownerId, sunSourceId);
    const [source, { range, totals, days, hours, modes }] = await inOrder(heading, async () => {
      const range = this.reportRange(period, custom);
      const [totals, days, hours, modes] = await Promise.all([
        this.telemetry.summary(sunSourceId, range),
        this.telemetry.daily(sunSourceId, range),
        this.telemetry.hourly(sunSourceId, range),
        this.telemetry.operatingModes(sunSourceId, range),
      ]);
      return { range, totals, days, hours, modes };
    });
    return buildReport({
      source,
      period,
      start: range.start,
      end: range.end,
      generatedAt: this.clock.now(),
      totals,
      days,
      hours,
      modes,
    });
  }

  async statistics(ownerId: string): Promise<SourceStatistics[]> {
    const [sources, activity, latest] = await Promise.all([
      this.sources.list(ownerId),
      this.telemetry.activityOfOwned(ownerId),
      this.telemetry.latestOfOwned(ownerId),
    ]);
    const latestBySource = new Map(latest.map((row) => [row.sunSourceId, row]));
    const names = new Map(sources.map((source) => [source.id, source.name]));
    return activity.map((entry) => ({
      sunSourceId: entry.sunSourceId,
      name: names.get(entry.sunSourceId) ?? '',
      messageCount: entry.messageCount,
      lastMessageTime: entry.lastMessageTime ? new Date(entry.lastMessageTime).toISOString() : null,
      latestMetrics: latestBySource.get(entry.sunSourceId) ?? null,
    }));
  }

  async count(ownerId: string, sunSourceId: string): Promise<number> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return this.telemetry.count(sunSourceId);
  }

  async sizeBytes(ownerId: string, sunSourceId: string): Promise<number> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return this.telemetry.sizeBytes(sunSourceId);
  }

  async rawPayloads(ownerId: string, sunSourceId: string, limit: number): Promise<RawPayload[]> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return (await this.telemetry.rawPayloads(sunSourceId, limit)).map((row) => ({
      timestamp: row.ts.toISOString(),
      receivedAt: row.receivedAt.toISOString(),
      payload: row.payload,
    }));
  }

  async cleanup(ownerId: string, sunSourceId: string): Promise<number> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return this.telemetry.deleteAll(sunSourceId);
  }

  /**
   * `read`'s answer once the ownership check has passed. Both run at once, since the check is a
   * round trip of its own when the source cache misses; the check's verdict still comes first
   * (another user's source is 404 whatever else is wrong with the request), and a read of it is
   * thrown away unseen.
   */
  private async whenOwned<T>(ownerId: string, sunSourceId: string, read: () => Promise<T>): Promise<T> {
    const [, answer] = await inOrder(this.access.assertOwnedBy(ownerId, sunSourceId), read);
    return answer;
  }

  /** `end` defaults to now and `start` to `defaultLength` before it. */
  private range(requested: RequestedRange, defaultLength: number): TimeRange {
    const end = requested.end ?? this.clock.now();
    const start = requested.start ?? new Date(end.getTime() - defaultLength);
    if (start > end) throw new BadRequestError('startTime must not be after endTime');
    return { start, end };
  }

  /** Periods in UTC: today so far, all of yesterday, the last 7 days, or the given dates. */
  private reportRange(period: ReportPeriod, custom: RequestedRange): TimeRange {
    const now = this.clock.now();
    const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    switch (period) {
      case 'today':
        return { start: midnight, end: now };
      case 'yesterday':
        return { start: new Date(midnight.getTime() - DAY), end: new Date(midnight.getTime() - 1) };
      case 'week':
        return { start: new Date(now.getTime() - 7 * DAY), end: now };
      case 'custom': {
        if (!custom.start || !custom.end) {
          throw new BadRequestError('A custom report needs startDateParam and endDateParam');
        }
        const range = this.range(custom, 0);
        if (range.end.getTime() - range.start.getTime() > QueryLimits.dailySummaryRangeDays * DAY) {
          throw new BadRequestError('Range exceeds 400 days');
        }
        return range;
      }
    }
  }
}
