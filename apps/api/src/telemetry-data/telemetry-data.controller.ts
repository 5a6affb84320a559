import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser, Omni } from '@solar/auth';
import { EncodedJson } from '@solar/database';
import { Clock } from '@solar/core';
import { SendsEncodedJson } from '@solar/platform';
import { TelemetryDownsampler, TelemetryQueries } from '@solar/telemetry';
import {
  CountDto,
  DeletedCountDto,
  DownsampleResultDto,
  RawPayloadDto,
  RawQueryDto,
  ReportQueryDto,
  SizeDto,
  SourceStatisticsDto,
  TelemetryReportDto,
} from './dto/telemetry-data.dto';

@ApiTags('telemetry data')
@ApiSessionAuth()
@Omni()
@Controller('api/sunsourcedata')
export class TelemetryDataController {
  constructor(
    private readonly queries: TelemetryQueries,
    private readonly downsampler: TelemetryDownsampler,
    private readonly clock: Clock,
  ) {}

  @Get('report/:sunSourceId')
  @ApiOperation({ summary: 'Data report of a source for a period' })
  @SendsEncodedJson()
  @ApiOkResponse({ type: TelemetryReportDto })
  report(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Query() query: ReportQueryDto,
  ): Promise<EncodedJson> {
    return this.queries.report(user.id, id, query.period, {
      start: query.startDateParam,
      end: query.endDateParam,
    });
  }

  @Post('downsample/:sunSourceId')
  @ApiOperation({ summary: "Compact a source's telemetry older than 30 days into 5-minute averages" })
  @HttpCode(200)
  @ApiOkResponse({
    type: DownsampleResultDto,
    description: 'Data older than 30 days becomes 5-minute averages',
  })
  downsample(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<DownsampleResultDto> {
    return this.downsampler.downsampleOwned(user.id, id, this.clock.now());
  }

  @Delete('cleanup/:sunSourceId')
  @ApiOperation({ summary: 'Delete all telemetry of a source' })
  @ApiOkResponse({ type: DeletedCountDto })
  async cleanup(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<DeletedCountDto> {
    return { deletedCount: await this.queries.cleanup(user.id, id) };
  }

  @Get('stats')
  @ApiOperation({ summary: 'Message counts and latest points of your sources' })
  @CostlyRoute()
  @ApiOkResponse({ type: SourceStatisticsDto, isArray: true })
  stats(@CurrentUser() user: AuthenticatedUser): Promise<SourceStatisticsDto[]> {
    return this.queries.statistics(user.id);
  }

  @Get('count/:sunSourceId')
  @ApiOperation({ summary: 'Number of stored telemetry points of a source' })
  @CostlyRoute()
  @ApiOkResponse({ type: CountDto })
  async count(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<CountDto> {
    return { count: await this.queries.count(user.id, id) };
  }

  @Get('size/:sunSourceId')
  @ApiOperation({ summary: "Estimated storage size of a source's telemetry" })
  @CostlyRoute()
  @ApiOkResponse({ type: SizeDto })
  async size(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
  ): Promise<SizeDto> {
    return { sizeBytes: await this.queries.sizeBytes(user.id, id) };
  }

  @Get('raw/:sunSourceId')
  @ApiOperation({ summary: 'Raw payloads of a source as received' })
  @ApiOkResponse({ type: RawPayloadDto, isArray: true, description: 'Newest first' })
  raw(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) id: string,
    @Query() query: RawQueryDto,
  ): Promise<RawPayloadDto[]> {
    return this.queries.rawPayloads(user.id, id, query.limit);
  }
}
