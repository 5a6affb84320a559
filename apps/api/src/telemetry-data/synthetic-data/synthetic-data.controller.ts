import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import {
  ApiCookieAuth,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AdminPlus, AuthenticatedUser, CostlyRoute, CurrentUser } from '@solar/auth';
import { SyntheticTelemetryService } from '@solar/telemetry';
import { GeneratedDto, LiveGeneratorStatusDto } from './dto/synthetic-data.dto';

/** Debug operations on synthetic telemetry: Admin+ only, on the caller's own sources. */
@ApiTags('sunsourcedata')
@ApiCookieAuth()
@ApiForbiddenResponse({ description: 'The caller is neither Admin nor Overseer' })
@ApiNotFoundResponse({ description: 'No such source among yours' })
@AdminPlus()
@Controller('api/sunsourcedata/debug')
export class SyntheticDataController {
  constructor(private readonly synthetic: SyntheticTelemetryService) {}

  @Post('generate/:sunSourceId')
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
  @HttpCode(200)
  @ApiOkResponse({ type: LiveGeneratorStatusDto })
  stop(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LiveGeneratorStatusDto> {
    return this.synthetic.stop(user.id, sunSourceId);
  }

  @Get('process/status/:sunSourceId')
  @ApiOkResponse({ type: LiveGeneratorStatusDto })
  status(
    @CurrentUser() user: AuthenticatedUser,
    @Param('sunSourceId', ParseUUIDPipe) sunSourceId: string,
  ): Promise<LiveGeneratorStatusDto> {
    return this.synthetic.status(user.id, sunSourceId);
  }
}
