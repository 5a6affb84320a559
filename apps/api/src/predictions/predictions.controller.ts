import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { ForecastAccuracyService, PredictionJobsService } from '@solar/predictions';
import {
  FORECAST_ACCURACY_DESCRIPTION,
  ForecastAccuracyDto,
  ForecastAccuracyQueryDto,
} from './dto/forecast-accuracy.dto';
import { PredictionRequestDto } from './dto/prediction-request.dto';
import {
  ForecastModelInfoDto,
  LatestPredictionDto,
  PredictionErrorDto,
  PredictionJobStatusDto,
  PredictionResultDto,
} from './dto/prediction.dto';

/** Training and forecast jobs: started here, run by the scheduler's worker. */
@ApiTags('predictions')
@ApiSessionAuth()
@ApiNotFoundResponse({ type: PredictionErrorDto, description: 'No such source (or job) among yours' })
@Controller('api/predictions')
export class PredictionsController {
  constructor(
    private readonly jobs: PredictionJobsService,
    private readonly accuracyScores: ForecastAccuracyService,
  ) {}

  @Post('train')
  @ApiOperation({ summary: "Start training a source's forecast model" })
  @CostlyRoute()
  @HttpCode(200)
  @ApiOkResponse({
    type: PredictionResultDto,
    description: 'Queued at once; or already_running with the id of the active training of that source',
  })
  @ApiBadRequestResponse({ description: 'Validation errors, or "Source needs latitude and longitude"' })
  @ApiServiceUnavailableResponse({ type: PredictionErrorDto, description: 'The job queue is unreachable' })
  train(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: PredictionRequestDto,
  ): Promise<PredictionResultDto> {
    return this.jobs.train(user.id, body.sunSourceId);
  }

  @Post('predict')
  @ApiOperation({ summary: 'Start a 7-day energy forecast of a source' })
  @CostlyRoute()
  @HttpCode(200)
  @ApiOkResponse({
    type: PredictionResultDto,
    description: 'A 7-day forecast, queued at once; without a trained model, the physics-only baseline',
  })
  @ApiBadRequestResponse({ description: 'Validation errors, or "Source needs latitude and longitude"' })
  @ApiServiceUnavailableResponse({ type: PredictionErrorDto, description: 'The job queue is unreachable' })
  predict(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: PredictionRequestDto,
  ): Promise<PredictionResultDto> {
    return this.jobs.predict(user.id, body.sunSourceId);
  }

  @Get('status/:jobId')
  @ApiOperation({ summary: 'Status of a training or forecast job' })
  @ApiOkResponse({ type: PredictionJobStatusDto, description: 'Kept for 24 hours after its last change' })
  status(
    @CurrentUser() user: AuthenticatedUser,
    @Param('jobId') jobId: string,
  ): Promise<PredictionJobStatusDto> {
    return this.jobs.status(user.id, jobId);
  }

  @Get('latest/:sunSourceId')
  @ApiOperation({ summary: 'Latest energy forecast of a source' })
  @ApiOkResponse({ type: LatestPredictionDto, description: 'The most recent forecast, by creation time' })
  latest(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LatestPredictionDto> {
    return this.jobs.latest(user.id, sunSourceId);
  }

  @Get('model-info/:sunSourceId')
  @ApiOperation({ summary: "What is known about a source's trained model" })
  @ApiOkResponse({ type: ForecastModelInfoDto })
  modelInfo(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<ForecastModelInfoDto> {
    return this.jobs.modelInfo(user.id, sunSourceId);
  }

  @Get(':sunSourceId/accuracy')
  @ApiOperation({
    summary: 'Accuracy of the day-ahead forecasts',
    description: FORECAST_ACCURACY_DESCRIPTION,
  })
  @ApiOkResponse({ type: ForecastAccuracyDto })
  @ApiBadRequestResponse({ description: 'days is not an integer from 1 to 365' })
  accuracy(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Query() query: ForecastAccuracyQueryDto,
  ): Promise<ForecastAccuracyDto> {
    return this.accuracyScores.accuracy(user.id, sunSourceId, query.days);
  }
}
