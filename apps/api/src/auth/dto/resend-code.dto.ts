import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class ResendCodeDto {
  @ApiProperty()
  @IsString()
  @MaxLength(254)
  email!: string;
}
