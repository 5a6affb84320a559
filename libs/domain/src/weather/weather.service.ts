import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@solar/core';
import { BadRequestError, NotFoundError } from '@solar/core';
import { SunSourceEntity } from '../sun-sources/sun-source.entity';
import { SunSourceRepository } from '../sun-sources/sun-source.repository';
import { SUN_SOURCE_NOT_FOUND } from '../sun-sources/source-access-cache';
import { Coordinates, FORECAST_DAYS } from './open-meteo-format';
import { OpenMeteoClient } from './open-meteo.client';
import { SOURCE_NEEDS_COORDINATES, WeatherProviderUnavailableError } from './weather.errors';
import { WeatherHour } from './weather-forecast';
import { WeatherRecord } from './weather-record';
import { WeatherRepository } from './weather.repository';

export type WeatherSource = Pick<SunSourceEntity, 'id' | 'latitude' | 'longitude'>;

/** The coordinates of a source that has both, else undefined. */
export function coordinatesOf(
  source: Pick<SunSourceEntity, 'latitude' | 'longitude'>,
): Coordinates | undefined {
  const { latitude, longitude } = source;
  return latitude === null || longitude === null ? undefined : { latitude, longitude };
}

/** Weather forecasts per source: fetched from the provider, stored, read back. */
@Injectable()
export class WeatherService {
  private readonly logger = new Logger(WeatherService.name);

  constructor(
    private readonly sources: SunSourceRepository,
    private readonly weather: WeatherRepository,
    private readonly provider: OpenMeteoClient,
    private readonly clock: Clock,
  ) {}

  /**
   * The next 8 days at the source (from its local today). When none are stored for its current
   * coordinates — a new source, one whose last forecast has run out, or one that has moved — it
   * is fetched once first.
   */
  async forecast(ownerId: string, sunSourceId: string): Promise<WeatherRecord[]> {
    return this.forecastOf(await this.findOwned(ownerId, sunSourceId));
  }

  /** `forecast` without the ownership check (public sharing checked what it may show). */
  async forecastOf(source: WeatherSource): Promise<WeatherRecord[]> {
    const coordinates = this.requireCoordinates(source);
    const stored = await this.weather.upcomingDays(source.id, coordinates, this.clock.now(), FORECAST_DAYS);
    if (stored.length > 0) return stored;
    return this.fetchAndStore(source.id, coordinates);
  }

  /** Fetches anew; when the provider fails, what was stored stays as it was. */
  async refresh(ownerId: string, sunSourceId: string): Promise<WeatherRecord[]> {
    return this.refreshSource(await this.findOwned(ownerId, sunSourceId));
  }

  /** `refresh` without the ownership check, for the scheduler. */
  async refreshSource(source: WeatherSource): Promise<WeatherRecord[]> {
    return this.fetchAndStore(source.id, this.requireCoordinates(source));
  }

  /** Whether any hour of `[from, to)` is stored for the source. */
  hasHourly(sunSourceId: string, range: { from: Date; to: Date }): Promise<boolean> {
    return this.weather.hasHours(sunSourceId, range.from, range.to);
  }

  /** The stored hourly series of a source in `[from, to)`, for the forecasting model. */
  hourly(sunSourceId: string, range: { from: Date; to: Date }): Promise<WeatherHour[]> {
    return this.weather.hours(sunSourceId, range.from, range.to);
  }

  private async fetchAndStore(sunSourceId: string, coordinates: Coordinates): Promise<WeatherRecord[]> {
    try {
      const forecast = await this.provider.fetchForecast(coordinates);
      await this.weather.save(sunSourceId, forecast, coordinates, this.clock.now());
    } catch (error) {
      if (error instanceof WeatherProviderUnavailableError) {
        this.logger.warn({ sunSourceId, reason: error.reason }, 'weather provider unavailable');
      }
      throw error;
    }
    return this.weather.upcomingDays(sunSourceId, coordinates, this.clock.now(), FORECAST_DAYS);
  }

  private async findOwned(ownerId: string, sunSourceId: string): Promise<SunSourceEntity> {
    const source = await this.sources.findOwned(ownerId, sunSourceId);
    if (!source) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    return source;
  }

  private requireCoordinates(source: WeatherSource): Coordinates {
    const coordinates = coordinatesOf(source);
    if (!coordinates) throw new BadRequestError(SOURCE_NEEDS_COORDINATES);
    return coordinates;
  }
}
