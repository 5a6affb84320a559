import { Injectable } from '@nestjs/common';
import { JsonArrayStream } from '@solar/database';
import {
  RoiService,
  RoiSummary,
  SharedSource,
  SharedView,
  SharingService,
  WeatherRecord,
  WeatherService,
} from '@solar/domain';
import {
  ForecastAccuracy,
  ForecastAccuracyService,
  LatestPrediction,
  PredictionJobsService,
} from '@solar/predictions';
import { RequestedRange, SunSourceMetrics, TelemetryQueries, TodaySoFar } from '@solar/telemetry';
import { PublicSourceDto } from './dto/sharing.dto';

/**
 * The public views of shared sources: each one asks the owner's sharing configuration first and
 * then reads through the same services the owner uses, without the ownership check.
 */
@Injectable()
export class PublicSharingService {
  constructor(
    private readonly sharing: SharingService,
    private readonly telemetry: TelemetryQueries,
    private readonly roi: RoiService,
    private readonly weather: WeatherService,
    private readonly predictions: PredictionJobsService,
    private readonly accuracyScores: ForecastAccuracyService,
  ) {}

  /** The sharing check: the source and its flags (NotFoundError when `view`, or all, is not shared). */
  shared(sunSourceId: string, view?: SharedView): Promise<SharedSource> {
    return this.sharing.sharedSource(sunSourceId, view);
  }

  async source(sunSourceId: string): Promise<PublicSourceDto> {
    return publicSourceOf(await this.shared(sunSourceId));
  }

  async latestMetrics(sunSourceId: string): Promise<SunSourceMetrics> {
    return this.latestMetricsOf(await this.shared(sunSourceId, 'shareMonitor'));
  }

  async metricsHistory(sunSourceId: string, range: RequestedRange, limit: number): Promise<JsonArrayStream> {
    await this.shared(sunSourceId, 'shareMonitor');
    return this.telemetry.historyOf(sunSourceId, range, limit);
  }

  async returns(sunSourceId: string): Promise<RoiSummary> {
    return this.returnsOf(await this.shared(sunSourceId, 'shareReturns'));
  }

  async weatherForecast(sunSourceId: string): Promise<WeatherRecord[]> {
    return this.weatherForecastOf(await this.shared(sunSourceId, 'shareWeather'));
  }

  /** The latest forecast, as its owner sees it. */
  async forecast(sunSourceId: string): Promise<LatestPrediction> {
    return this.forecastOf(await this.shared(sunSourceId, 'shareForecast'));
  }

  /** The accuracy of the day-ahead forecasts, as its owner sees it. */
  async forecastAccuracy(sunSourceId: string, days: number): Promise<ForecastAccuracy> {
    return this.forecastAccuracyOf(await this.shared(sunSourceId, 'shareForecast'), days);
  }

  // The views of a source the sharing check has found; each caller checked its flag.

  latestMetricsOf({ source }: SharedSource): Promise<SunSourceMetrics> {
    return this.telemetry.latestOf(source.id);
  }

  /** Today's hourly curve and energy so far, as the owner's aggregates and daily summary give them. */
  todayOf({ source }: SharedSource): Promise<TodaySoFar> {
    return this.telemetry.todayOf(source.id);
  }

  /** Today's energy so far, as the owner's daily summary gives it. */
  energyTodayOf({ source }: SharedSource): Promise<number | null> {
    return this.telemetry.energyTodayOf(source.id);
  }

  /** Computed exactly as for the owner, whose id the sharing check has found. */
  returnsOf({ source }: SharedSource): Promise<RoiSummary> {
    return this.roi.calculate(source.userId, source.id);
  }

  weatherForecastOf({ source }: SharedSource): Promise<WeatherRecord[]> {
    return this.weather.forecastOf(source);
  }

  forecastOf({ source }: SharedSource): Promise<LatestPrediction> {
    return this.predictions.latestOf(source.id);
  }

  forecastAccuracyOf({ source }: SharedSource, days: number): Promise<ForecastAccuracy> {
    return this.accuracyScores.accuracyOf(source, days);
  }
}

/** What a stranger may know of a shared source: never its owner, credentials or coordinates. */
export function publicSourceOf({ source, flags }: SharedSource): PublicSourceDto {
  return {
    sunSourceId: source.id,
    name: source.name,
    description: source.description,
    iconUrl: source.iconUrl,
    installedCapacityWatts: source.installedCapacityWatts,
    shareMonitor: flags.shareMonitor,
    shareWeather: flags.shareWeather,
    shareForecast: flags.shareForecast,
    shareReturns: flags.shareReturns,
  };
}
