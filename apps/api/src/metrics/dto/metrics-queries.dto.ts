import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ClampedInt, IsoDateTime } from '../../dto-decorators';

export class TimeRangeQueryDto {
  @ApiPropertyOptional({ type: String, format: 'date-time' })
  @IsOptional()
  @IsoDateTime()
  startTime?: Date;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Default: now' })
  @IsOptional()
  @IsoDateTime()
  endTime?: Date;
}

export class HistoryQueryDto extends TimeRangeQueryDto {
  @ClampedInt({ min: 1, max: 1000, default: 100 })
  limit = 100;
}
