import { ApiProperty } from '@nestjs/swagger';

export class ImageUrlDto {
  @ApiProperty({ example: 'https://solar.example.org/uploads/users/{userId}/{uuid}.png' })
  url!: string;
}

export class UploadMessageDto {
  @ApiProperty({ example: 'Image deleted' })
  message!: string;
}
