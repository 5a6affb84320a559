import { Injectable } from '@nestjs/common';
import { HealthCheck, HealthDetail } from '@solar/platform';
import { BrokerConnection } from './broker-connection';

@Injectable()
export class BrokerHealthCheck implements HealthCheck {
  readonly name = 'broker';

  constructor(private readonly connection: BrokerConnection) {}

  async check(): Promise<void> {
    if (!this.connection.connected) throw new Error('not connected to the MQTT broker');
  }
}

/**
 * `intake: { status, inFlight, maxInFlight, paused }`: messages held unacknowledged. Paused at
 * the cap reads `degraded` but is not a failure: the broker keeps what the ingestor does not take.
 */
@Injectable()
export class IntakeHealthCheck implements HealthCheck {
  readonly name = 'intake';
  readonly critical = false;

  constructor(private readonly connection: BrokerConnection) {}

  async check(): Promise<HealthDetail> {
    const intake = this.connection.intake();
    return { status: intake.paused ? 'degraded' : 'up', ...intake };
  }
}
