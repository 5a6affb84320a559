import { ApiProperty } from '@nestjs/swagger';
import {
  DailyForecastPoint,
  HourlyForecastPoint,
  ModelMetrics,
  OrientationSource,
  ServedModel,
} from '@solar/forecast';
import { PredictionJobView, PredictionResult } from '@solar/predictions';

/** Training metrics on a time-ordered hold-out (both forms). */
export class ModelMetricsDto implements ModelMetrics {
  @ApiProperty({ description: 'Mean absolute error of solar power, W' }) mae!: number;
  @ApiProperty({ description: 'Root mean square error of solar power, W' }) rmse!: number;
  @ApiProperty({ description: 'Coefficient of determination of solar power' }) r2!: number;
  @ApiProperty() solar_mae!: number;
  @ApiProperty() solar_rmse!: number;
  @ApiProperty() solar_r2!: number;
  @ApiProperty() load_mae!: number;
  @ApiProperty() load_rmse!: number;
  @ApiProperty() load_r2!: number;
}

const SERVED = ['learned', 'baseline'];

export class ServedOrientationDto {
  @ApiProperty({ description: 'Degrees from the horizontal' }) tilt!: number;
  @ApiProperty({ description: 'Degrees from north, clockwise (180: facing south)' }) azimuth!: number;
  @ApiProperty({
    enum: ['installed', 'fitted', 'assumed'],
    description:
      'installed: the source’s own orientation, as its owner gave it; fitted on clear days of the history; ' +
      'assumed (30° facing the equator) with too few of them',
  })
  source!: OrientationSource;
}

/**
 * Which model is live: a learned part is served only when it beat its baseline on the last 15 %
 * of the training history (held out, day-ahead forecasts); else the baseline is.
 */
export class ServedModelDto implements ServedModel {
  @ApiProperty({
    enum: SERVED,
    description:
      'Solar with a weather forecast; baseline: the fitted physical model without the learned correction',
  })
  solar!: 'learned' | 'baseline';
  @ApiProperty({
    enum: SERVED,
    description:
      "Solar for hours without weather; baseline: smart persistence (the last day's clear-sky index)",
  })
  solarWithoutWeather!: 'learned' | 'baseline';
  @ApiProperty({
    enum: SERVED,
    description:
      'Load; baseline: the profile, the mean of the same hour over the last 14 days moved by half of how far the ' +
      "last 3 days' mean load is from the 14 days'",
  })
  load!: 'learned' | 'baseline';
  @ApiProperty({ type: ServedOrientationDto, description: 'The array orientation the solar forecast uses' })
  orientation!: ServedOrientationDto;
}

/** One hour of a forecast. */
export class HourlyForecastPointDto implements HourlyForecastPoint {
  @ApiProperty({ format: 'date-time', description: 'Start of the UTC hour' }) timestamp!: string;
  @ApiProperty({ description: 'W, mean over the hour; 0 while the sun is down' }) solarPower!: number;
  @ApiProperty({ description: 'W, mean over the hour' }) loadPower!: number;
  @ApiProperty({ description: '%, 0-100' }) stateOfCharge!: number;
  @ApiProperty({ description: 'kWh in the hour' }) energyProduced!: number;
  @ApiProperty({ description: 'kWh in the hour' }) energyConsumed!: number;
}

/** One day of a forecast. */
export class DailyForecastPointDto implements DailyForecastPoint {
  @ApiProperty({ format: 'date', example: '2026-06-10' }) date!: string;
  @ApiProperty({ description: 'kWh' }) solarProductionKwh!: number;
  @ApiProperty({ description: 'kWh' }) loadConsumptionKwh!: number;
  @ApiProperty({ description: 'kWh' }) batteryChargeKwh!: number;
}

/** The answer to train and predict. */
export class PredictionResultDto implements PredictionResult {
  @ApiProperty({
    example: 'train_3f2a9c1e_1781092800',
    description: 'The new job, or the active one when status is already_running',
  })
  jobId!: string;
  @ApiProperty({ enum: ['queued', 'already_running'] }) status!: 'queued' | 'already_running';
  @ApiProperty({ type: 'array', nullable: true, items: {}, description: 'null at start' }) predictions!: null;
  @ApiProperty({ type: ModelMetricsDto, nullable: true, description: 'null at start' }) metrics!: null;
  @ApiProperty({ type: String, nullable: true }) error!: null;
}

/** The status of a training or forecast job. */
export class PredictionJobStatusDto implements PredictionJobView {
  @ApiProperty() jobId!: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed'] })
  status!: PredictionJobView['status'];
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) progress!: number;
  @ApiProperty({ type: String, nullable: true, description: 'What the job is doing or did' })
  message!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed' }) error!: string | null;
  @ApiProperty({ enum: ['train', 'predict'] }) type!: PredictionJobView['type'];
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: ModelMetricsDto, nullable: true, description: 'A completed training: its metrics' })
  metrics!: ModelMetricsDto | null;
  @ApiProperty({
    type: HourlyForecastPointDto,
    isArray: true,
    nullable: true,
    description: 'A completed forecast: its 168 hourly points',
  })
  predictions!: HourlyForecastPointDto[] | null;
  @ApiProperty({ type: 'integer', description: 'Hourly points of history the job used' })
  dataPointsUsed!: number;
  @ApiProperty({
    type: ModelMetricsDto,
    description: 'Metrics of the model behind the result; {} when there is none (physics baseline)',
  })
  modelMetrics!: ModelMetricsDto | Record<string, never>;
  @ApiProperty({
    type: ServedModelDto,
    nullable: true,
    description:
      'Which model is live after the training, or behind the forecast; null without a trained model',
  })
  servedModel!: ServedModelDto | null;
}

export class StoredPredictionDto {
  @ApiProperty({ type: HourlyForecastPointDto, isArray: true, description: '168 hourly points, 7 days' })
  predictions!: HourlyForecastPointDto[];
  @ApiProperty({ type: DailyForecastPointDto, isArray: true, description: '7 daily points (UTC days)' })
  daily!: DailyForecastPointDto[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ description: 'The job that made it' }) jobId!: string;
}

/** The latest stored forecast of a source. */
export class LatestPredictionDto {
  @ApiProperty() exists!: boolean;
  @ApiProperty({ type: StoredPredictionDto, nullable: true }) data!: StoredPredictionDto | null;
}

export class ForecastModelInfoDataDto {
  @ApiProperty({
    format: 'date-time',
    description:
      'When the model was last trained: on a train request, or by the scheduled prediction job, which trains a ' +
      'model again once it is 30 days old while trained on less than 330 days of history, and once it is a year old',
  })
  trainedAt!: string;
  @ApiProperty({ type: 'integer' }) dataPointsUsed!: number;
  @ApiProperty({ type: ModelMetricsDto }) metrics!: ModelMetricsDto;
  @ApiProperty({
    type: ServedModelDto,
    nullable: true,
    description: 'Which model is live; null for a model trained before this was recorded',
  })
  servedModel!: ServedModelDto | null;
}

/** What is known about a source's trained model. */
export class ForecastModelInfoDto {
  @ApiProperty() exists!: boolean;
  @ApiProperty({ type: ForecastModelInfoDataDto, nullable: true }) data!: ForecastModelInfoDataDto | null;
}

export class PredictionErrorDto {
  @ApiProperty({ example: 'Sun source not found' }) message!: string;
}
