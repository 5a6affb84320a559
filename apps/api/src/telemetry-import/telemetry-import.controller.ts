import { Controller, Get, Inject, Param, ParseUUIDPipe, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser, Omni } from '@solar/auth';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { TelemetryImports } from '@solar/telemetry-import';
import { CSV_MEDIA_TYPES, csvUploadOf } from './csv-upload';
import {
  ImportJobAcceptedDto,
  ImportJobDto,
  ImportQueryDto,
  ImportReportDto,
} from './dto/telemetry-import.dto';

/** History from a CSV file, stored as the source's telemetry (docs/import.md). */
@ApiTags('telemetry data')
@ApiSessionAuth()
@ApiNotFoundResponse({ description: 'No such source among yours' })
@Omni()
@Controller('api/sunsourcedata')
export class TelemetryImportController {
  constructor(
    private readonly imports: TelemetryImports,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post(':sunSourceId/import')
  @CostlyRoute()
  @ApiOperation({ summary: 'Import telemetry history from a CSV file' })
  @ApiConsumes(...CSV_MEDIA_TYPES, 'multipart/form-data')
  @ApiBody({ description: 'A CSV file with a header row, as the body or as the form field `file`' })
  @ApiOkResponse({ type: ImportReportDto, description: 'A small file, imported at once' })
  @ApiAcceptedResponse({ type: ImportJobAcceptedDto, description: 'A large file, imported by a job' })
  @ApiPayloadTooLargeResponse({ description: 'Over IMPORT_MAX_BYTES' })
  async import(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Query() query: ImportQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportReportDto | ImportJobAcceptedDto> {
    const upload = () => csvUploadOf(request, this.config.limits.importMaxBytes);
    const started = await this.imports.start(user.id, sunSourceId, upload, { timeZone: query.timeZone });
    if (started.kind === 'report') {
      response.status(200);
      return started.report;
    }
    response.status(202);
    return { jobId: started.jobId };
  }

  @Get(':sunSourceId/import/:jobId')
  @ApiOperation({ summary: 'Progress and report of an import job' })
  @ApiOkResponse({ type: ImportJobDto })
  job(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Param('jobId', ParseUUIDPipe) jobId: string,
  ): Promise<ImportJobDto> {
    return this.imports.status(user.id, sunSourceId, jobId);
  }
}
