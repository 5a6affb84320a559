import { Injectable, Logger } from '@nestjs/common';
import { eachConcurrently } from '@solar/core';
import { SettingType } from '../settings/settings.service';
import { ScheduledSource, SunSourceRepository } from '../sun-sources/sun-source.repository';
import { WeatherProviderUnavailableError } from './weather.errors';
import { coordinatesOf, WeatherService } from './weather.service';

export interface WeatherRefreshCounts {
  /** Sources whose forecast was fetched and stored. */
  refreshed: number;
  /** Sources whose refresh failed (logged); the others went on. */
  failed: number;
  /** Inactive sources and sources without coordinates. */
  skipped: number;
}

/** A few requests at a time: bounded run time, and polite to a free provider. */
const CONCURRENCY = 4;

/**
 * The scheduler's weather refresh: every active source with coordinates of every
 * user whose setting 2 (AutoUpdateWeatherData) is "1".
 */
@Injectable()
export class ScheduledWeatherRefresh {
  private readonly logger = new Logger(ScheduledWeatherRefresh.name);

  constructor(
    private readonly sources: SunSourceRepository,
    private readonly weather: WeatherService,
  ) {}

  async run(): Promise<WeatherRefreshCounts> {
    const counts: WeatherRefreshCounts = { refreshed: 0, failed: 0, skipped: 0 };
    const due: ScheduledSource[] = [];
    for (const source of await this.sources.sourcesOfUsersWithEnabled(SettingType.AutoUpdateWeatherData)) {
      if (source.isActive && coordinatesOf(source)) due.push(source);
      else counts.skipped += 1;
    }
    await eachConcurrently(due, CONCURRENCY, async (source) => {
      try {
        await this.weather.refreshSource(source);
        counts.refreshed += 1;
      } catch (error) {
        counts.failed += 1;
        // Provider failures are already logged, with their reason, by the service.
        if (!(error instanceof WeatherProviderUnavailableError)) {
          this.logger.error({ err: error, sunSourceId: source.id }, 'weather refresh failed');
        }
      }
    });
    return counts;
  }
}
