import { Injectable } from '@nestjs/common';
import type { IntakeState } from './telemetry/mqtt-telemetry-consumer.service';

/** The ingestor's MQTT connection state, as its transport last reported it, and its intake. */
@Injectable()
export class BrokerConnection {
  private status = 'disconnected';
  private intakeState: () => IntakeState = () => ({ inFlight: 0, maxInFlight: 0, paused: false });

  update(status: string): void {
    this.status = status;
  }

  get connected(): boolean {
    return this.status === 'connected';
  }

  /** How full the consumer is (in flight, cap, paused), for the health check. */
  reportIntake(state: () => IntakeState): void {
    this.intakeState = state;
  }

  intake(): IntakeState {
    return this.intakeState();
  }
}
