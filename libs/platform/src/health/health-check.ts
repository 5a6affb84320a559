/** One dependency an app needs to do its work; `check` rejects when it does not answer. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');
