import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { Clock, DomainError, NotFoundError } from '@solar/core';
import { SharedSource } from '@solar/domain';
import { SunSourceMetrics } from '@solar/telemetry';
import { PublicSourceDto } from '../dto/sharing.dto';
import { PublicSharingService, publicSourceOf } from '../public-sharing.service';
import { BADGE_COLOURS, renderBadge } from './badge';
import { ShortLivedCache } from './short-lived-cache';
import { formatKwh } from './share-page-format';
import {
  ForecastRecord,
  ForecastView,
  MonitorView,
  renderNotFoundPage,
  renderSharePage,
  Section,
} from './share-page.view';

/** A source is "online" while its latest point is at most this old (devices report every 10 s to 5 min). */
const ONLINE_WITHIN_MS = 15 * 60_000;
/**
 * How long a rendered page or badge is reused by this process (docs/security.md, "Share page and badge").
 * A page reads six views; a burst of visitors costs one rendering per source in this time.
 */
const RENDERED_TTL_MS = 30_000;
/** Enough for every source shared on an instance to stay cached; a page is ~10 kB. */
const RENDERED_MAX_ENTRIES = 1000;
const FORECAST_DAYS = 7;
/** The days whose day-ahead forecasts the page scores, as the accuracy endpoint does by default. */
const RECORD_DAYS = 30;

export interface RenderedAnswer {
  status: 200 | 404;
  body: string;
}

const NOT_FOUND_PAGE = renderNotFoundPage();
const NOT_SHARED_BADGE = renderBadge('solar', 'not shared', BADGE_COLOURS.notFound);

/**
 * The share page and badge of a source: what `PublicSharingService` answers on the public JSON
 * endpoints, rendered. Sharing is checked once per request; only the rendering is cached.
 */
@Injectable()
export class SharePageService {
  private readonly rendered: ShortLivedCache<string>;

  constructor(
    private readonly views: PublicSharingService,
    private readonly clock: Clock,
  ) {
    this.rendered = new ShortLivedCache(RENDERED_TTL_MS, RENDERED_MAX_ENTRIES, () => clock.now().getTime());
  }

  async page(sunSourceId: string): Promise<RenderedAnswer> {
    const shared = await this.sharedSource(sunSourceId);
    if (!shared) return { status: 404, body: NOT_FOUND_PAGE };
    const source = publicSourceOf(shared);
    const body = await this.rendered.get(`page:${source.sunSourceId}`, JSON.stringify(source), () =>
      this.renderPage(shared, source),
    );
    return { status: 200, body };
  }

  async badge(sunSourceId: string): Promise<RenderedAnswer> {
    const shared = await this.sharedSource(sunSourceId);
    if (!shared?.flags.shareMonitor) return { status: 404, body: NOT_SHARED_BADGE };
    const body = await this.rendered.get(`badge:${shared.source.id}`, 'shared', () =>
      this.renderBadge(shared),
    );
    return { status: 200, body };
  }

  /** The sharing check, or null when the source is not shared or does not exist. */
  private async sharedSource(sunSourceId: string): Promise<SharedSource | null> {
    if (!isUUID(sunSourceId)) return null;
    try {
      return await this.views.shared(sunSourceId);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private async renderPage(shared: SharedSource, source: PublicSourceDto): Promise<string> {
    const generatedAt = this.clock.now();
    const [monitor, forecast, forecastRecord, returns, weather] = await Promise.all([
      source.shareMonitor ? section(this.monitor(shared)) : undefined,
      source.shareForecast ? this.forecast(shared) : undefined,
      source.shareForecast ? this.forecastRecord(shared) : undefined,
      source.shareReturns ? section(this.views.returnsOf(shared)) : undefined,
      source.shareWeather ? section(this.views.weatherForecastOf(shared)) : undefined,
    ]);
    return renderSharePage({
      name: source.name,
      description: source.description,
      installedCapacityWatts: source.installedCapacityWatts,
      generatedAt,
      monitor,
      forecast,
      forecastRecord,
      returns,
      weather,
    });
  }

  private async renderBadge(shared: SharedSource): Promise<string> {
    const [latest, energyTodayKwh] = await Promise.all([
      this.latestOrNone(shared),
      this.views.energyTodayOf(shared),
    ]);
    if (!this.isOnline(latest)) return renderBadge('solar', 'offline', BADGE_COLOURS.offline);
    if (energyTodayKwh === null) return renderBadge('solar', 'online', BADGE_COLOURS.idle);
    return renderBadge('solar', `${formatKwh(energyTodayKwh)} today`, BADGE_COLOURS.producing);
  }

  private async monitor(shared: SharedSource): Promise<MonitorView> {
    const [latest, today] = await Promise.all([this.latestOrNone(shared), this.views.todayOf(shared)]);
    return { latest, online: this.isOnline(latest), today };
  }

  /** The latest point, or null for a source that has stored nothing yet. */
  private latestOrNone(shared: SharedSource): Promise<SunSourceMetrics | null> {
    return this.views.latestMetricsOf(shared).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
  }

  private isOnline(latest: SunSourceMetrics | null): boolean {
    return latest !== null && this.clock.now().getTime() - Date.parse(latest.timestamp) <= ONLINE_WITHIN_MS;
  }

  /** The latest forecast's days from today (UTC) on. */
  private async forecast(shared: SharedSource): Promise<Section<ForecastView>> {
    const latest = await section(this.views.forecastOf(shared));
    if (!latest.shown) return latest;
    if (!latest.data.exists) return { shown: false, reason: 'No forecast yet.' };
    const today = this.clock.now().toISOString().slice(0, 10);
    const days = latest.data.data.daily.filter((day) => day.date >= today).slice(0, FORECAST_DAYS);
    return { shown: true, data: { days, createdAt: latest.data.data.createdAt } };
  }

  /** How the kept day-ahead forecasts of the last days did; null when they cannot be scored now. */
  private async forecastRecord(shared: SharedSource): Promise<ForecastRecord | null> {
    const scored = await section(this.views.forecastAccuracyOf(shared, RECORD_DAYS));
    if (!scored.shown) return null;
    const { daysScored, overall } = scored.data;
    return {
      days: RECORD_DAYS,
      daysScored,
      solar: overall.solar && { maeW: overall.solar.maeW, nmae: overall.solar.nmae },
      vsSmartPersistence: overall.skill.vsSmartPersistence,
    };
  }
}

/**
 * A section's data, or why it cannot be shown: a view that is not there (no location for the
 * weather, the provider down) leaves the rest of the page standing. Other errors fail the page.
 */
async function section<T>(data: Promise<T>): Promise<Section<T>> {
  try {
    return { shown: true, data: await data };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return {
      shown: false,
      reason: error.kind === 'unavailable' ? 'Not available right now.' : 'Not available.',
    };
  }
}
