import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsTimeZone } from 'class-validator';
import { IMPORT_JOB_STATES, ImportMessages } from '@solar/telemetry-import';

export class ImportQueryDto {
  @ApiPropertyOptional({
    example: 'Europe/Berlin',
    description: 'IANA time zone of timestamps written without a UTC offset (default: UTC)',
  })
  @IsOptional()
  @IsTimeZone({ message: ImportMessages.invalidTimeZone })
  timeZone?: string;
}

class ImportRejectionDto {
  @ApiProperty({ type: 'integer', description: 'Line in the file; the header is line 1' }) line!: number;
  @ApiProperty() reason!: string;
}

/** What became of an import's rows. */
export class ImportReportDto {
  @ApiProperty({ type: 'integer' }) rowsRead!: number;
  @ApiProperty({ type: 'integer' }) stored!: number;
  @ApiProperty({ type: 'integer', description: 'Stored before at that very timestamp' }) duplicate!: number;
  @ApiProperty({ type: 'integer', description: 'Within 10 s of device time of another row' })
  throttled!: number;
  @ApiProperty({ type: 'integer' }) rejected!: number;
  @ApiProperty({ type: ImportRejectionDto, isArray: true, description: 'The first 100, by line' })
  rejections!: ImportRejectionDto[];
}

export class ImportJobAcceptedDto {
  @ApiProperty({ format: 'uuid' }) jobId!: string;
}

export class ImportJobDto extends ImportReportDto {
  @ApiProperty({ enum: IMPORT_JOB_STATES }) state!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Why a failed import stopped' })
  error!: string | null;
}
