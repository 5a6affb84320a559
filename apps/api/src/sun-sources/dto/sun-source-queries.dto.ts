import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { BooleanQuery } from '../../dto-decorators';

export class ListSunSourcesQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the sources of this Power Group' })
  @IsOptional()
  @IsUUID()
  powerGroupId?: string;
}

export class GetSunSourceQueryDto {
  @BooleanQuery({ default: false, description: 'Include the MQTT or webhook credentials' })
  includeConnectionDetails = false;
}
