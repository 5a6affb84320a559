import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@solar/auth';
import { HEALTH_CHECKS, HealthCheck, HealthDetail } from './health-check';

const CHECK_TIMEOUT_MS = 2000;

type CheckState = 'up' | 'down' | HealthDetail;

@ApiTags('health')
@Controller('api/health')
export class HealthController {
  constructor(@Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[]) {}

  @Public()
  @Get()
  @ApiOperation({
    summary:
      'Liveness and readiness: 200 when every dependency answers (status degraded when a non-critical check is not up), 503 otherwise',
  })
  async health(@Res() response: Response): Promise<void> {
    const states = await Promise.all(this.checks.map((check) => probe(check)));
    const checks = Object.fromEntries(this.checks.map((check, index) => [check.name, states[index]]));
    const isUp = (state: CheckState) =>
      state === 'up' || (typeof state === 'object' && state.status === 'up');
    const healthy = this.checks.every((check, index) => check.critical === false || isUp(states[index]));
    const status = !healthy ? 'error' : states.every(isUp) ? 'ok' : 'degraded';
    response.status(healthy ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json({ status, checks });
  }
}

async function probe(check: HealthCheck): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([check.check(), timeout])) ?? 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
