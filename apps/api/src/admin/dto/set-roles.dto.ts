import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn } from 'class-validator';
import { Role, ROLES } from '@solar/domain';

export class SetRolesDto {
  @ApiProperty({ enum: ROLES, isArray: true, example: ['User', 'Admin'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(ROLES.length)
  @ArrayUnique()
  @IsIn(ROLES, { each: true, message: `each role must be one of ${ROLES.join(', ')}` })
  roles!: Role[];
}
