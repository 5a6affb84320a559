import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { SettingValue } from '@solar/domain';

export class SettingDto {
  @ApiProperty({ enum: ['0', '1'] })
  @IsIn(['0', '1'], { message: 'value must be "0" or "1"' })
  value!: SettingValue;
}
