import { Injectable } from '@nestjs/common';
import { EmqxKicks } from '@solar/domain';
import { HealthCheck, HealthDetail } from '@solar/platform';

/**
 * `emqxKicks: { status, pending, failing }`: EMQX disconnects being retried, and those given up
 * on in the last hour (degraded). Not critical: the source's devices are refused by the broker's
 * checks and by the write anyway, and taking the api out of service would stop further
 * revocations too.
 */
@Injectable()
export class EmqxKicksHealthCheck implements HealthCheck {
  readonly name = 'emqxKicks';
  readonly critical = false;

  constructor(private readonly kicks: EmqxKicks) {}

  async check(): Promise<HealthDetail> {
    const counts = await this.kicks.counts(Date.now());
    return { status: counts.failing > 0 ? 'degraded' : 'up', ...counts };
  }
}
