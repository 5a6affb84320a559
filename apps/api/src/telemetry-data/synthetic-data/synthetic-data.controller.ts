import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AdminPlus, ApiSessionAuth, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { SyntheticTelemetryService } from '@solar/synthetic';
import { GeneratedDto, LiveGeneratorStatusDto } from './dto/synthetic-data.dto';

/** Debug operations on synthetic telemetry: Admin+ only, on the caller's own sources. */
@ApiTags('sunsourcedata')
@ApiSessionAuth()
@ApiForbiddenResponse({ description: 'The caller is neither Admin nor Overseer' })
@ApiNotFoundResponse({ description: 'No such source among yours' })
@AdminPlus()
@Controller('api/sunsourcedata/debug')
export class SyntheticDataController {
  constructor(private readonly synthetic: SyntheticTelemetryService) {}

  @Post('generate/:sunSourceId')
  @ApiOperation({ summary: 'Generate 30 days of synthetic telemetry for a source' })
  @CostlyRoute()
  @HttpCode(200)
  @ApiOkResponse({
    type: GeneratedDto,
    description: '30 days of synthetic data, 8,640 points 5 minutes apart',
  })
  async generate(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<GeneratedDto> {
    return { generated: await this.synthetic.generate(user.id, sunSourceId) };
  }

  @Post('process/start/:sunSourceId')
  @ApiOperation({ summary: 'Start a live generator of synthetic telemetry' })
  @CostlyRoute()
  @HttpCode(200)
  @ApiOkResponse({
    type: LiveGeneratorStatusDto,
    description: 'One message every 10 s through the normal ingestion path; starting twice changes nothing',
  })
  start(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LiveGeneratorStatusDto> {
    return this.synthetic.start(user.id, sunSourceId);
  }

  @Post('process/stop/:sunSourceId')
  @ApiOperation({ summary: 'Stop the live generator' })
  @HttpCode(200)
  @ApiOkResponse({ type: LiveGeneratorStatusDto })
  stop(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LiveGeneratorStatusDto> {
    return this.synthetic.stop(user.id, sunSourceId);
  }

  @Get('process/status/:sunSourceId')
  @ApiOperation({ summary: 'Status of the live generator' })
  @ApiOkResponse({ type: LiveGeneratorStatusDto })
  status(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LiveGeneratorStatusDto> {
    return this.synthetic.status(user.id, sunSourceId);
  }
}
