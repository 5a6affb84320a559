import { Controller, Get, Param, ParseUUIDPipe, Query, StreamableFile, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import { Public } from '@solar/auth';
import { NotFoundError } from '@solar/core';
import { NOT_SHARED } from '@solar/domain';
import { streamedJson } from '@solar/platform';
import { HistoryQueryDto } from '../metrics/dto/metrics-queries.dto';
import { SunSourceMetricsDto } from '../metrics/dto/metrics.dto';
import {
  FORECAST_ACCURACY_DESCRIPTION,
  ForecastAccuracyDto,
  ForecastAccuracyQueryDto,
} from '../predictions/dto/forecast-accuracy.dto';
import { LatestPredictionDto } from '../predictions/dto/prediction.dto';
import { RoiSummaryDto } from '../roi/dto/roi-summary.dto';
import { WeatherRecordDto } from '../weather/dto/weather-record.dto';
import { PublicSourceDto } from './dto/sharing.dto';
import { PublicSharingService } from './public-sharing.service';

// Not even "that is not an id" is told to a stranger.
const sharedId = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(NOT_SHARED) });

@ApiTags('sharing (public)')
@ApiNotFoundResponse({ description: 'Not shared, or no such source: the same answer' })
@ApiTooManyRequestsResponse({ description: 'Too many requests from this address' })
@Public()
@UseGuards(ThrottlerGuard)
@Controller('api/sharing/public')
export class PublicSharingController {
  constructor(private readonly views: PublicSharingService) {}

  @Get(':sunSourceId')
  @ApiOperation({ summary: "A shared source's basic information" })
  @ApiOkResponse({ type: PublicSourceDto })
  source(@Param('sunSourceId', sharedId) id: string): Promise<PublicSourceDto> {
    return this.views.source(id);
  }

  @Get(':sunSourceId/metrics')
  @ApiOperation({ summary: "A shared source's latest telemetry point" })
  @ApiOkResponse({ type: SunSourceMetricsDto })
  metrics(@Param('sunSourceId', sharedId) id: string): Promise<SunSourceMetricsDto> {
    return this.views.latestMetrics(id);
  }

  @Get(':sunSourceId/metrics/history')
  @ApiOperation({ summary: "A shared source's telemetry points in a time range" })
  @ApiOkResponse({
    type: SunSourceMetricsDto,
    isArray: true,
    description: 'Newest first; default: the last 24 hours',
  })
  async history(
    @Param('sunSourceId', sharedId) id: string,
    @Query() query: HistoryQueryDto,
  ): Promise<StreamableFile> {
    const range = { start: query.startTime, end: query.endTime };
    return streamedJson(await this.views.metricsHistory(id, range, query.limit));
  }

  @Get(':sunSourceId/roi')
  @ApiOperation({ summary: "A shared source's return on investment" })
  @ApiOkResponse({ type: RoiSummaryDto })
  roi(@Param('sunSourceId', sharedId) id: string): Promise<RoiSummaryDto> {
    return this.views.returns(id);
  }

  @Get(':sunSourceId/weather')
  @ApiOperation({ summary: "A shared source's weather forecast" })
  @ApiOkResponse({ type: WeatherRecordDto, isArray: true })
  weather(@Param('sunSourceId', sharedId) id: string): Promise<WeatherRecordDto[]> {
    return this.views.weatherForecast(id);
  }

  @Get(':sunSourceId/forecast')
  @ApiOperation({ summary: "A shared source's latest energy forecast" })
  @ApiOkResponse({ type: LatestPredictionDto, description: 'The latest forecast, as the owner sees it' })
  forecast(@Param('sunSourceId', sharedId) id: string): Promise<LatestPredictionDto> {
    return this.views.forecast(id);
  }

  @Get(':sunSourceId/forecast/accuracy')
  @ApiOperation({
    summary: 'Accuracy of the shared day-ahead forecasts (requires shareForecast)',
    description: FORECAST_ACCURACY_DESCRIPTION,
  })
  @ApiOkResponse({ type: ForecastAccuracyDto, description: 'As the owner sees it' })
  @ApiBadRequestResponse({ description: 'days is not an integer from 1 to 365' })
  forecastAccuracy(
    @Param('sunSourceId', sharedId) id: string,
    @Query() query: ForecastAccuracyQueryDto,
  ): Promise<ForecastAccuracyDto> {
    return this.views.forecastAccuracy(id, query.days);
  }
}
