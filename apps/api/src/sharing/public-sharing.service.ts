import { Injectable } from '@nestjs/common';
import { JsonArrayStream } from '@solar/database';
import { RoiService, RoiSummary, SharingService, WeatherRecord, WeatherService } from '@solar/domain';
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

  async source(sunSourceId: string): Promise<PublicSourceDto> {
    const { source, flags } = await this.sharing.sharedSource(sunSourceId);
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

  async latestMetrics(sunSourceId: string): Promise<SunSourceMetrics> {
    await this.sharing.sharedSource(sunSourceId, 'shareMonitor');
    return this.telemetry.latestOf(sunSourceId);
  }

  async metricsHistory(sunSourceId: string, range: RequestedRange, limit: number): Promise<JsonArrayStream> {
    await this.sharing.sharedSource(sunSourceId, 'shareMonitor');
    return this.telemetry.historyOf(sunSourceId, range, limit);
  }

  /** Today's hourly curve and energy so far, as the owner's aggregates and daily summary give them. */
  async today(sunSourceId: string): Promise<TodaySoFar> {
    await this.sharing.sharedSource(sunSourceId, 'shareMonitor');
    return this.telemetry.todayOf(sunSourceId);
  }

  /** Computed exactly as for the owner, whose id the sharing check has found. */
  async returns(sunSourceId: string): Promise<RoiSummary> {
    const { source } = await this.sharing.sharedSource(sunSourceId, 'shareReturns');
    return this.roi.calculate(source.userId, sunSourceId);
  }

  async weatherForecast(sunSourceId: string): Promise<WeatherRecord[]> {
    const { source } = await this.sharing.sharedSource(sunSourceId, 'shareWeather');
    return this.weather.forecastOf(source);
  }

  /** The latest forecast, as its owner sees it. */
  async forecast(sunSourceId: string): Promise<LatestPrediction> {
    await this.sharing.sharedSource(sunSourceId, 'shareForecast');
    return this.predictions.latestOf(sunSourceId);
  }

  /** The accuracy of the day-ahead forecasts, as its owner sees it. */
  async forecastAccuracy(sunSourceId: string, days: number): Promise<ForecastAccuracy> {
    const { source } = await this.sharing.sharedSource(sunSourceId, 'shareForecast');
    return this.accuracyScores.accuracyOf(source, days);
  }
}
