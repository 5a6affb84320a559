import { ApiProperty } from '@nestjs/swagger';
import { IsoDateTime } from '../../dto-decorators';

export class ExportQueryDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'Start of the range, inclusive (ISO 8601; without an offset, UTC)',
  })
  @IsoDateTime()
  startDate!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'End of the range, exclusive; at most 33 days after startDate',
  })
  @IsoDateTime()
  endDate!: Date;
}
