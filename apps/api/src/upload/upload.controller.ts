import {
  Controller,
  Delete,
  HttpCode,
  ParseFilePipe,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import { BadRequestError } from '@solar/core';
import { ImageStore, MAX_IMAGE_BYTES } from '@solar/domain';
import { DeleteImageQueryDto } from './dto/delete-image-query.dto';
import { ImageUrlDto, UploadMessageDto } from './dto/upload-responses.dto';
import { UploadErrorsInterceptor } from './upload-errors.interceptor';
import { UploadedImageFile } from './uploaded-file';

// In memory (multer's default storage): at most one file of 5 MB, and nothing else in the form.
const SINGLE_IMAGE = FileInterceptor('file', {
  limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 0, parts: 2 },
});

const requiredFile = new ParseFilePipe({ exceptionFactory: () => new BadRequestError('file is required') });

@ApiTags('upload')
@ApiSessionAuth()
@Controller('api/upload')
export class UploadController {
  constructor(private readonly images: ImageStore) {}

  @Post('image')
  @ApiOperation({ summary: 'Upload an image (source icon, group logo)' })
  @HttpCode(200)
  @UseInterceptors(UploadErrorsInterceptor, SINGLE_IMAGE)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'JPEG, PNG, GIF or WebP, at most 5 MB' },
      },
    },
  })
  @ApiOkResponse({ type: ImageUrlDto })
  @ApiBadRequestResponse({
    description: 'No file, a type other than JPEG/PNG/GIF/WebP, or content not of that type',
  })
  @ApiPayloadTooLargeResponse({ description: 'Larger than 5 MB' })
  async upload(
    @CurrentUser() user: AuthenticatedUser,
    @UploadedFile(requiredFile) file: UploadedImageFile,
  ): Promise<ImageUrlDto> {
    return { url: await this.images.save(user.id, { mimeType: file.mimetype, bytes: file.buffer }) };
  }

  @Delete('image')
  @ApiOperation({ summary: 'Delete one of your uploaded images' })
  @ApiOkResponse({ type: UploadMessageDto })
  @ApiBadRequestResponse({ description: 'url is missing or not an absolute http(s) URL' })
  @ApiNotFoundResponse({ description: "No such image among the caller's own" })
  async delete(
    @CurrentUser() user: AuthenticatedUser,
    @Query() query: DeleteImageQueryDto,
  ): Promise<UploadMessageDto> {
    await this.images.delete(user.id, query.url);
    return { message: 'Image deleted' };
  }
}
