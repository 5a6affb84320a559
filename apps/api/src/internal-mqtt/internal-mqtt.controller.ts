import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InternalKeyAuth } from '@solar/auth';
import { DeviceAuthService } from '@solar/domain';
import { brokerHookRequests } from '@solar/monitoring';
import { BrokerAclRequestDto, BrokerAuthRequestDto, BrokerVerdictDto } from './dto/broker-requests.dto';

/** The broker's callbacks: always HTTP 200 with a verdict, as EMQX expects. */
@ApiTags('internal')
@InternalKeyAuth()
@Controller('api/internal/mqtt')
export class InternalMqttController {
  constructor(private readonly devices: DeviceAuthService) {}

  @Post('auth')
  @ApiOperation({ summary: 'Broker callback: may this MQTT client connect?' })
  @HttpCode(200)
  @ApiOkResponse({ type: BrokerVerdictDto })
  async auth(@Body() body: BrokerAuthRequestDto): Promise<BrokerVerdictDto> {
    const verdict = await counted(
      'auth',
      this.devices.authenticate(body.clientId, body.username, body.password),
      (result) => result,
    );
    return verdict === 'deny'
      ? { result: 'deny' }
      : { result: 'allow', is_superuser: verdict === 'superuser' };
  }

  @Post('acl')
  @ApiOperation({ summary: 'Broker callback: may this MQTT client publish to this topic?' })
  @HttpCode(200)
  @ApiOkResponse({ type: BrokerVerdictDto })
  async acl(@Body() body: BrokerAclRequestDto): Promise<BrokerVerdictDto> {
    const allowed = await counted(
      'acl',
      this.devices.authorize(body.clientId, body.username, body.topic, body.action),
      (result) => (result ? 'allow' : 'deny'),
    );
    return { result: allowed ? 'allow' : 'deny' };
  }
}

/** Counts the broker's request in `solar_broker_hook_requests_total` by its verdict, or `error`. */
async function counted<T>(
  hook: 'auth' | 'acl',
  check: Promise<T>,
  verdictOf: (result: T) => string,
): Promise<T> {
  try {
    const result = await check;
    brokerHookRequests.inc({ hook, verdict: verdictOf(result) });
    return result;
  } catch (error) {
    brokerHookRequests.inc({ hook, verdict: 'error' });
    throw error;
  }
}
