import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

/** Body of POST train and predict. */
export class PredictionRequestDto {
  @ApiProperty({ format: 'uuid', description: 'One of your sources, with latitude and longitude' })
  @IsUUID()
  sunSourceId!: string;
}
