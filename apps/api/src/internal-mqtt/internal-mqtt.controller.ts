import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { InternalApiKeyGuard, Public } from '@solar/auth';
import { DeviceAuthService } from '@solar/domain';
import { BrokerAclRequestDto, BrokerAuthRequestDto, BrokerVerdictDto } from './dto/broker-requests.dto';

/** The broker's callbacks: always HTTP 200 with a verdict, as EMQX expects. */
@ApiTags('internal')
@ApiHeader({ name: 'X-Internal-API-Key', required: true })
@ApiUnauthorizedResponse({ description: 'Wrong or missing internal key' })
@Public()
@UseGuards(InternalApiKeyGuard)
@Controller('api/internal/mqtt')
export class InternalMqttController {
  constructor(private readonly devices: DeviceAuthService) {}

  @Post('auth')
  @HttpCode(200)
  @ApiOkResponse({ type: BrokerVerdictDto })
  async auth(@Body() body: BrokerAuthRequestDto): Promise<BrokerVerdictDto> {
    const verdict = await this.devices.authenticate(body.clientId, body.username, body.password);
    return verdict === 'deny'
      ? { result: 'deny' }
      : { result: 'allow', is_superuser: verdict === 'superuser' };
  }

  @Post('acl')
  @HttpCode(200)
  @ApiOkResponse({ type: BrokerVerdictDto })
  async acl(@Body() body: BrokerAclRequestDto): Promise<BrokerVerdictDto> {
    const allowed = await this.devices.authorize(body.clientId, body.username, body.topic, body.action);
    return { result: allowed ? 'allow' : 'deny' };
  }
}
