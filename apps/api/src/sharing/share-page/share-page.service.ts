import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { Clock, DomainError, NotFoundError } from '@solar/core';
import { NOT_SHARED } from '@solar/domain';
import { NO_TELEMETRY_YET } from '@solar/telemetry';
import { PublicSourceDto } from '../dto/sharing.dto';
import { PublicSharingService } from '../public-sharing.service';
import { BADGE_COLOURS, renderBadge } from './badge';
import { ShortLivedCache } from './short-lived-cache';
import { ForecastView, MonitorView, renderNotFoundPage, renderSharePage, Section } from './share-page.view';

/** A source is "online" while its latest point is at most this old (devices report every 10 s to 5 min). */
export const ONLINE_WITHIN_MS = 15 * 60_000;
/**
 * How long a rendered page or badge is reused by this process (docs/security.md, "Share page and badge").
 * A page reads six views; a burst of visitors costs one rendering per source in this time.
 */
export const RENDERED_TTL_MS = 30_000;
/** Enough for every source shared on an instance to stay cached; a page is ~10 kB. */
const RENDERED_MAX_ENTRIES = 1000;
const FORECAST_DAYS = 7;

export interface RenderedAnswer {
  status: 200 | 404;
  body: string;
}

const NOT_FOUND_PAGE = renderNotFoundPage();
const NOT_SHARED_BADGE = renderBadge('solar', 'not shared', BADGE_COLOURS.notFound).text;

/**
 * The share page and badge of a source: what `PublicSharingService` answers on the public JSON
 * endpoints, rendered. Sharing is checked on every request; only the rendering is cached.
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
    const source = await this.sharedSource(sunSourceId);
    if (!source) return { status: 404, body: NOT_FOUND_PAGE };
    const body = await this.rendered.get(`page:${source.sunSourceId}`, JSON.stringify(source), () =>
      this.renderPage(source),
    );
    return { status: 200, body };
  }

  async badge(sunSourceId: string): Promise<RenderedAnswer> {
    const source = await this.sharedSource(sunSourceId);
    if (!source?.shareMonitor) return { status: 404, body: NOT_SHARED_BADGE };
    const body = await this.rendered.get(`badge:${source.sunSourceId}`, 'shared', () =>
      this.renderBadge(source.sunSourceId),
    );
    return { status: 200, body };
  }

  /** The source as a stranger may see it, or null when it is not shared or does not exist. */
  private async sharedSource(sunSourceId: string): Promise<PublicSourceDto | null> {
    if (!isUUID(sunSourceId)) return null;
    try {
      return await this.views.source(sunSourceId);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private async renderPage(source: PublicSourceDto): Promise<string> {
    const id = source.sunSourceId;
    const generatedAt = this.clock.now();
    const [monitor, forecast, returns, weather] = await Promise.all([
      source.shareMonitor ? section(this.monitor(id)) : undefined,
      source.shareForecast ? this.forecast(id) : undefined,
      source.shareReturns ? section(this.views.returns(id)) : undefined,
      source.shareWeather ? section(this.views.weatherForecast(id)) : undefined,
    ]);
    return renderSharePage({
      name: source.name,
      description: source.description,
      installedCapacityWatts: source.installedCapacityWatts,
      generatedAt,
      monitor,
      forecast,
      returns,
      weather,
    });
  }

  private async renderBadge(sunSourceId: string): Promise<string> {
    const { online, today } = await this.monitor(sunSourceId);
    if (!online) return renderBadge('solar', 'offline', BADGE_COLOURS.offline).text;
    if (today.energyProducedKwh === null) return renderBadge('solar', 'online', BADGE_COLOURS.idle).text;
    const value = `${today.energyProducedKwh.toFixed(1)} kWh today`;
    return renderBadge('solar', value, BADGE_COLOURS.producing).text;
  }

  private async monitor(sunSourceId: string): Promise<MonitorView> {
    const [latest, today] = await Promise.all([
      this.views.latestMetrics(sunSourceId).catch((error: unknown) => {
        if (error instanceof NotFoundError && error.message === NO_TELEMETRY_YET) return null;
        throw error;
      }),
      this.views.today(sunSourceId),
    ]);
    const age = latest ? this.clock.now().getTime() - Date.parse(latest.timestamp) : Infinity;
    return { latest, online: age <= ONLINE_WITHIN_MS, today };
  }

  /** The latest forecast's days from today (UTC) on. */
  private async forecast(sunSourceId: string): Promise<Section<ForecastView>> {
    const latest = await section(this.views.forecast(sunSourceId));
    if (!latest.shown) return latest;
    if (!latest.data.exists) return { shown: false, reason: 'No forecast yet.' };
    const today = this.clock.now().toISOString().slice(0, 10);
    const days = latest.data.data.daily.filter((day) => day.date >= today).slice(0, FORECAST_DAYS);
    return { shown: true, data: { days, createdAt: latest.data.data.createdAt } };
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
    if (error.kind === 'unavailable') return { shown: false, reason: 'Not available right now.' };
    return { shown: false, reason: error.message === NOT_SHARED ? 'Not shared.' : 'Not available.' };
  }
}
