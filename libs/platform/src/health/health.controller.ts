import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@solar/auth';
import { HEALTH_CHECKS, HealthCheck } from './health-check';

const CHECK_TIMEOUT_MS = 2000;

type CheckState = 'up' | 'down';

@ApiTags('health')
@Controller('api/health')
export class HealthController {
  constructor(@Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[]) {}

  @Public()
  @Get()
  @ApiOperation({ summary: 'Liveness and readiness: 200 when every dependency answers, 503 otherwise' })
  async health(@Res() response: Response): Promise<void> {
    const states = await Promise.all(this.checks.map((check) => probe(check)));
    const checks = Object.fromEntries(this.checks.map((check, index) => [check.name, states[index]]));
    const healthy = states.every((state) => state === 'up');
    const details = Object.fromEntries(
      this.checks.flatMap((check) => (check.details ? [[check.name, check.details()]] : [])),
    );
    response.status(healthy ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json({
      status: healthy ? 'ok' : 'error',
      checks,
      ...(Object.keys(details).length > 0 ? { details } : {}),
    });
  }
}

async function probe(check: HealthCheck): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
