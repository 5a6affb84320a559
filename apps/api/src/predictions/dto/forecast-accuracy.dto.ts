import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import {
  AccuracyScore,
  BatteryScore,
  DAY_AHEAD_ACCURACY_DEFINITIONS,
  ForecastModelKind,
  LoadScore,
  SolarScore,
  SolarSkill,
} from '@solar/forecast';
import { ForecastAccuracy, ScoredDay } from '@solar/predictions';

const MODEL_KINDS: ForecastModelKind[] = ['learned', 'baseline', 'physics'];

/** How the accuracy endpoints describe themselves in the OpenAPI document. */
export const FORECAST_ACCURACY_DESCRIPTION = [
  'How good the day-ahead forecasts of the last `days` UTC days were, per day and overall. Each',
  'forecast job (asked for, or the scheduled one) keeps its next UTC day; a day is scored once it',
  'has ended, against the hourly means of the telemetry. Days without a kept forecast or without',
  'any measurement are left out. Definitions, shared with `npm run bench:forecast`:',
  '',
  ...DAY_AHEAD_ACCURACY_DEFINITIONS.map((line) => (line.startsWith('  ') ? line : `- ${line}`)),
].join('\n');

/** Query of the accuracy endpoints. */
export class ForecastAccuracyQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 365,
    default: 30,
    description: 'How many UTC days before today to score',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'days must be an integer' })
  @Min(1)
  @Max(365)
  days = 30;
}

export class SolarScoreDto implements SolarScore {
  @ApiProperty({ type: 'integer', description: 'Daytime hours scored' }) hours!: number;
  @ApiProperty({ description: 'Root mean square error, W' }) rmseW!: number;
  @ApiProperty({ description: 'Mean absolute error, W' }) maeW!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.085,
    description: 'RMSE / installed capacity, a fraction (0.085 is 8.5 %); null without a capacity',
  })
  nrmse!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'MAE / installed capacity, a fraction; null without a capacity',
  })
  nmae!: number | null;
}

export class LoadScoreDto implements LoadScore {
  @ApiProperty({ type: 'integer', description: 'Hours scored' }) hours!: number;
  @ApiProperty({ description: 'Root mean square error of load power, W' }) rmseW!: number;
  @ApiProperty({ description: 'Mean absolute error of load power, W' }) maeW!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Skill against the load profile (the physics-only forecast's load: the same hour's mean over the 14 days " +
      "before, moved by half of how far the last 3 days' mean is from the 14 days'); null when that profile was perfect",
  })
  skillVsProfile!: number | null;
}

export class BatteryScoreDto implements BatteryScore {
  @ApiProperty({ type: 'integer', description: 'Hours scored' }) hours!: number;
  @ApiProperty({ description: 'Mean absolute error of the state of charge, percentage points' })
  socMae!: number;
}

export class SolarSkillDto implements SolarSkill {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Solar skill against smart persistence: 1 − RMSE / RMSE of smart persistence',
  })
  vsSmartPersistence!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Solar skill against the untrained physics-only forecast (0 when it is what was served)',
  })
  vsPhysics!: number | null;
}

export class AccuracyScoreDto implements AccuracyScore {
  @ApiProperty({ type: SolarScoreDto, nullable: true, description: 'null: no solar hour scored' })
  solar!: SolarScoreDto | null;
  @ApiProperty({ type: LoadScoreDto, nullable: true, description: 'null: no load measured' })
  load!: LoadScoreDto | null;
  @ApiProperty({ type: BatteryScoreDto, nullable: true, description: 'null: no state of charge measured' })
  battery!: BatteryScoreDto | null;
  @ApiProperty({ type: SolarSkillDto }) skill!: SolarSkillDto;
}

export class ScoredDayDto extends AccuracyScoreDto implements ScoredDay {
  @ApiProperty({ format: 'date', example: '2026-06-10', description: 'The UTC day scored' }) date!: string;
  @ApiProperty({ format: 'date-time', description: 'When its day-ahead forecast was issued' })
  issuedAt!: string;
  @ApiProperty({
    enum: MODEL_KINDS,
    description:
      'Which model made that forecast: learned (a trained model), baseline (chosen over it by validation) or physics (untrained)',
  })
  model!: ForecastModelKind;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When that model was trained (null for the physics forecast): the scheduled job trains a young model again ' +
      'every 30 days, and its owner may train it at any time',
  })
  modelTrainedAt!: string | null;
}

export class LiveForecastModelDto {
  @ApiProperty({
    enum: MODEL_KINDS,
    description:
      'The model the next forecast uses: once trained, learned, or baseline when the training held the learned ' +
      'model out because it did not beat its baseline on the last 15 % of the history for any part (the model ' +
      'info’s servedModel says per part); else the physics-only forecast, also for a stored model the forecast ' +
      'cannot read (one of an older model version)',
  })
  live!: ForecastModelKind;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it was trained; null when the physics-only forecast is live',
  })
  trainedAt!: string | null;
}

export class ForecastAccuracyDto implements ForecastAccuracy {
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty({ format: 'date', description: 'First UTC day of the window' }) from!: string;
  @ApiProperty({ format: 'date', description: 'Last UTC day of the window (yesterday)' }) to!: string;
  @ApiProperty({ type: 'integer', description: 'Days with a score (the length of `days`)' })
  daysScored!: number;
  @ApiProperty({
    enum: ['capacity', 'watts'],
    description:
      'capacity: nRMSE and nMAE are fractions of the installed capacity; watts: no capacity is set',
  })
  normalizedBy!: 'capacity' | 'watts';
  @ApiProperty({ type: Number, nullable: true, description: 'The installed capacity used, W' })
  capacityWatts!: number | null;
  @ApiProperty({ type: LiveForecastModelDto }) model!: LiveForecastModelDto;
  @ApiProperty({ type: ScoredDayDto, isArray: true, description: 'Oldest first' }) days!: ScoredDayDto[];
  @ApiProperty({ type: AccuracyScoreDto, description: 'Every scored hour of every scored day' })
  overall!: AccuracyScoreDto;
}
