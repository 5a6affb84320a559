import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CurrentUser, Omni } from '@solar/auth';
import { EncodedJson } from '@solar/database';
import { SendsEncodedJson, streamedJson } from '@solar/platform';
import { TelemetryQueries } from '@solar/telemetry';
import { DailySummaryDto, HourlyAggregateDto, SunSourceMetricsDto } from './dto/metrics.dto';
import { HistoryQueryDto, TimeRangeQueryDto } from './dto/metrics-queries.dto';
import { SourceIdListPipe } from './source-id-list.pipe';

@ApiTags('metrics')
@ApiSessionAuth()
@Omni()
@Controller('api/sunsourcemetrics')
export class MetricsController {
  constructor(private readonly queries: TelemetryQueries) {}

  @Get('faults')
  @ApiOperation({ summary: 'Latest points of your sources that carry fault or warning codes' })
  @ApiOkResponse({
    type: SunSourceMetricsDto,
    isArray: true,
    description: 'Latest points that carry fault or warning codes',
  })
  faults(@CurrentUser() user: AuthenticatedUser): Promise<SunSourceMetricsDto[]> {
    return this.queries.faults(user.id);
  }

  @Post('batch/latest')
  @ApiOperation({ summary: 'Latest point of each of up to 50 of your sources' })
  @HttpCode(200)
  @SendsEncodedJson()
  @ApiBody({ schema: { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: 50 } })
  @ApiOkResponse({
    description: 'Source id → its latest point; other users’ ids and sources without data are left out',
    schema: { type: 'object', additionalProperties: { $ref: getSchemaPath(SunSourceMetricsDto) } },
  })
  batchLatest(
    @CurrentUser() user: AuthenticatedUser,
    @Body(SourceIdListPipe) ids: string[],
  ): Promise<EncodedJson> {
    return this.queries.batchLatest(user.id, ids);
  }

  @Get(':sunSourceId/latest')
  @ApiOperation({ summary: 'Latest telemetry point of a source' })
  @ApiOkResponse({ type: SunSourceMetricsDto })
  @ApiNotFoundResponse({ description: 'No such source among yours, or no telemetry yet' })
  latest(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<SunSourceMetricsDto> {
    return this.queries.latest(user.id, id);
  }

  @Get(':sunSourceId/history')
  @ApiOperation({ summary: 'Raw telemetry points of a source in a time range' })
  @ApiOkResponse({
    type: SunSourceMetricsDto,
    isArray: true,
    description: 'Newest first; default: the last 24 hours',
  })
  async history(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Query() query: HistoryQueryDto,
  ): Promise<StreamableFile> {
    const range = { start: query.startTime, end: query.endTime };
    return streamedJson(await this.queries.history(user.id, id, range, query.limit));
  }

  @Get(':sunSourceId/aggregated')
  @ApiOperation({ summary: 'Hourly aggregates of a source' })
  @ApiOkResponse({
    type: HourlyAggregateDto,
    isArray: true,
    description: 'UTC hours, oldest first; at most 90 days',
  })
  async aggregated(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Query() query: TimeRangeQueryDto,
  ): Promise<StreamableFile> {
    return streamedJson(
      await this.queries.aggregated(user.id, id, { start: query.startTime, end: query.endTime }),
    );
  }

  @Get(':sunSourceId/daily-summary')
  @ApiOperation({ summary: 'Daily (or weekly) summaries of a source' })
  @SendsEncodedJson()
  @ApiOkResponse({
    type: DailySummaryDto,
    isArray: true,
    description: 'UTC days; ISO weeks beyond 60 days; 400 days at most',
  })
  dailySummary(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Query() query: TimeRangeQueryDto,
  ): Promise<EncodedJson> {
    return this.queries.dailySummary(user.id, id, { start: query.startTime, end: query.endTime });
  }
}
