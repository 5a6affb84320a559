import { Controller, Get, Param, ParseUUIDPipe, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser } from '@solar/auth';
import {
  attachmentDisposition,
  EXPORT_CONTENT_TYPES,
  ExportFile,
  ExportFormat,
  TelemetryExportService,
} from '@solar/telemetry';
import { ExportQueryDto } from './dto/export-query.dto';

const FILE = { type: 'string', format: 'binary' } as const;
const COLUMNS =
  'Columns: `timestamp` (ISO 8601, UTC), then every telemetry field by its canonical name; ' +
  'records with startDate <= timestamp < endDate, oldest first, at most 500,000 ' +
  '(`X-Export-Truncated: true` when the range held more).';

@ApiTags('export')
@ApiSessionAuth()
@ApiBadRequestResponse({
  description: 'Missing or invalid dates, endDate not after startDate, or over 33 days',
})
@ApiNotFoundResponse({ description: 'No such source among yours' })
@Controller('api/export')
export class ExportController {
  constructor(private readonly telemetryExport: TelemetryExportService) {}

  @Get(':sunSourceId/csv')
  @ApiOperation({ summary: "Export a source's telemetry as CSV" })
  @ApiProduces(EXPORT_CONTENT_TYPES.csv)
  @ApiOkResponse({
    schema: FILE,
    description: `\`export_{name}_{date}.csv\`: RFC 4180, UTF-8, header row. ${COLUMNS} Codes are joined with \`;\`; text that a spreadsheet could take for a formula starts with \`'\`.`,
  })
  csv(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Query() query: ExportQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    return this.download(user, sunSourceId, query, response, 'csv');
  }

  @Get(':sunSourceId/excel')
  @ApiOperation({ summary: "Export a source's telemetry as an Excel workbook" })
  @ApiProduces(EXPORT_CONTENT_TYPES.xlsx)
  @ApiOkResponse({
    schema: FILE,
    description: `\`export_{name}_{date}.xlsx\` with sheets \`Data\` (${COLUMNS}) and \`Summary\` (per numeric field count, average, minimum, maximum; record count, first and last timestamp; energy produced and consumed as the sum of each UTC day's highest daily counter).`,
  })
  excel(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
    @Query() query: ExportQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    return this.download(user, sunSourceId, query, response, 'xlsx');
  }

  private download(
    user: AuthenticatedUser,
    sunSourceId: string,
    query: ExportQueryDto,
    response: Response,
    format: ExportFormat,
  ): Promise<void> {
    const request = { ownerId: user.id, sunSourceId, ...query };
    return this.telemetryExport.export(request, format, (file) => startDownload(response, file));
  }
}

function startDownload(response: Response, file: ExportFile): Response {
  response.status(200);
  response.setHeader('Content-Type', file.contentType);
  response.setHeader('Content-Disposition', attachmentDisposition(file.fileName));
  if (file.truncated) response.setHeader('X-Export-Truncated', 'true');
  // So that a front end on another allowed origin can read the file name and the flag.
  response.setHeader('Access-Control-Expose-Headers', 'Content-Disposition, X-Export-Truncated');
  return response;
}
