/** One dependency an app needs to do its work; `check` rejects when it does not answer. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
  /** Figures shown beside the verdict (e.g. how full a queue is); never secrets. */
  details?(): object;
}

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');
