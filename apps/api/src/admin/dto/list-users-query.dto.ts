import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength } from 'class-validator';
import { ClampedInt } from '../../dto-decorators';

export class ListUsersQueryDto {
  @ApiPropertyOptional({ type: 'integer', default: 1, description: 'From 1; smaller values read as 1' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be an integer' })
  @Max(1_000_000)
  page = 1;

  @ClampedInt({ min: 1, max: 100, default: 20 })
  pageSize = 20;

  @ApiPropertyOptional({ description: 'Part of the e-mail, first or last name (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}
