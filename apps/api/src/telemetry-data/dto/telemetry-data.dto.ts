import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ClampedInt, IsoDateTime } from '../../dto-decorators';
import { REPORT_PERIODS, ReportPeriod } from '@solar/telemetry';
import { HourlyAggregateDto, SunSourceMetricsDto } from '../../metrics/dto/metrics.dto';

export class ReportQueryDto {
  @ApiProperty({
    enum: REPORT_PERIODS,
    description: 'UTC: today so far, all of yesterday, the last 7 days, or custom',
  })
  @IsIn(REPORT_PERIODS, { message: `period must be one of ${REPORT_PERIODS.join(', ')}` })
  period!: ReportPeriod;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'For custom' })
  @IsOptional()
  @IsoDateTime()
  startDateParam?: Date;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'For custom' })
  @IsOptional()
  @IsoDateTime()
  endDateParam?: Date;
}

export class RawQueryDto {
  @ClampedInt({ min: 1, max: 1000, default: 100 })
  limit = 100;
}

class OperatingModeShareDto {
  @ApiProperty() mode!: string;
  @ApiProperty({ type: 'integer' }) count!: number;
  @ApiProperty({ description: 'Percent of the data points that reported a mode' }) percentage!: number;
}

class ReportSummaryDto {
  @ApiProperty({ type: Number, nullable: true }) avgSolarPower!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maxSolarPower!: number | null;
  @ApiProperty({ type: Number, nullable: true }) avgStateOfCharge!: number | null;
  @ApiProperty({ type: Number, nullable: true }) minStateOfCharge!: number | null;
  @ApiProperty({ type: Number, nullable: true }) avgBatteryVoltage!: number | null;
  @ApiProperty({ type: Number, nullable: true }) avgLoadPower!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maxLoadPower!: number | null;
  @ApiProperty({ description: 'kWh' }) totalEnergyProduced!: number;
  @ApiProperty({ description: 'kWh' }) totalEnergyConsumed!: number;
  @ApiProperty({ type: OperatingModeShareDto, isArray: true }) operatingModes!: OperatingModeShareDto[];
}

class ReportSourceDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) iconUrl!: string | null;
}

/** The data report of a source. */
export class TelemetryReportDto {
  @ApiProperty({ type: ReportSourceDto }) source!: ReportSourceDto;
  @ApiProperty({ enum: REPORT_PERIODS }) period!: string;
  @ApiProperty() startDate!: string;
  @ApiProperty() endDate!: string;
  @ApiProperty() generatedAt!: string;
  @ApiProperty({ type: 'integer' }) dataPoints!: number;
  @ApiProperty({ type: ReportSummaryDto }) summary!: ReportSummaryDto;
  @ApiProperty({ type: HourlyAggregateDto, isArray: true }) hourlyData!: HourlyAggregateDto[];
}

export class SourceStatisticsDto {
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) messageCount!: number;
  @ApiProperty({ type: String, nullable: true }) lastMessageTime!: string | null;
  @ApiProperty({ type: SunSourceMetricsDto, nullable: true }) latestMetrics!: SunSourceMetricsDto | null;
}

export class RawPayloadDto {
  @ApiProperty() timestamp!: string;
  @ApiProperty() receivedAt!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'As received, without the webhook key',
  })
  payload!: Record<string, unknown>;
}

export class CountDto {
  @ApiProperty({ type: 'integer' }) count!: number;
}

export class SizeDto {
  @ApiProperty({ type: 'integer', description: 'Bytes of the stored rows' }) sizeBytes!: number;
}

export class DeletedCountDto {
  @ApiProperty({ type: 'integer' }) deletedCount!: number;
}

export class DownsampleResultDto {
  @ApiProperty({ type: 'integer' }) bucketsWritten!: number;
  @ApiProperty({ type: 'integer' }) rowsRemoved!: number;
}
