import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class DeleteImageQueryDto {
  @ApiProperty({
    description: "The URL the upload returned: absolute http(s), in the caller's own folder",
    example: 'https://solar.example.org/uploads/users/{userId}/{file}.png',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url!: string;
}
