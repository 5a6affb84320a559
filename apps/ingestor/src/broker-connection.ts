import { Injectable } from '@nestjs/common';

/** The ingestor's MQTT connection state, as its transport last reported it, and its intake. */
@Injectable()
export class BrokerConnection {
  private status = 'disconnected';
  private intakeState: () => object = () => ({});

  update(status: string): void {
    this.status = status;
  }

  get connected(): boolean {
    return this.status === 'connected';
  }

  /** How full the consumer is (in flight, cap, paused), for the health check. */
  reportIntake(state: () => object): void {
    this.intakeState = state;
  }

  intake(): object {
    return this.intakeState();
  }
}
