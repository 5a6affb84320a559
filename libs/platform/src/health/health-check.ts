/** One dependency an app needs to do its work; `check` rejects when it does not answer. */
export interface HealthCheck {
  readonly name: string;
  /**
   * false: shown, but never what makes the app unhealthy (503). Such a check reports a
   * `HealthDetail`; when it is degraded or down, the overall status reads `degraded`, still 200.
   */
  readonly critical?: boolean;
  check(): Promise<void | HealthDetail>;
}

/** What a check has to say beyond up or down, shown in place of its state. */
export interface HealthDetail {
  status: 'up' | 'degraded';
  [detail: string]: unknown;
}

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');
