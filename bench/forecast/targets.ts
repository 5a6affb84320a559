/**
 * The accuracy targets the forecasting model is held to (issue 21; docs/performance.md), checked
 * on whatever a run scores. A target whose figure the run does not produce (no weather, no load,
 * no installed orientation given) is listed as not checked, never as met.
 */

import { threeDecimals } from './scores';

export interface TargetFigures {
  /** Solar daytime nRMSE with the measured weather as the forecast, setting (a). */
  weatherNrmse: number | null;
  /** Solar skill against smart persistence without weather, setting (b). */
  historySkill: number | null;
  /** Load skill against same-as-yesterday (setting (b), the one every input has). */
  loadSkill: number | null;
  /** The orientation the weather-trained model inferred (else the history-only one). */
  inferred: { tilt: number; azimuth: number } | null;
  installed: { tilt: number; azimuth: number } | null;
}

export interface TargetCheck {
  target: string;
  /** The figure as printed, or null when this run has none. */
  figure: string | null;
  met: boolean | null;
}

export const TARGETS = {
  weatherNrmse: 0.075,
  historySkill: 0.2,
  loadSkill: 0.25,
  tiltDegrees: 5,
  azimuthDegrees: 10,
} as const;

const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/** Smallest angle between two azimuths, degrees. */
export function azimuthDifference(a: number, b: number): number {
  const difference = Math.abs(a - b) % 360;
  return difference > 180 ? 360 - difference : difference;
}

export function checkTargets(figures: TargetFigures): TargetCheck[] {
  const { inferred, installed } = figures;
  const orientation =
    inferred && installed
      ? {
          tilt: Math.abs(inferred.tilt - installed.tilt),
          azimuth: azimuthDifference(inferred.azimuth, installed.azimuth),
        }
      : null;
  return [
    {
      target: `solar (a), measured weather: daytime nRMSE ≤ ${percent(TARGETS.weatherNrmse)}`,
      figure: figures.weatherNrmse === null ? null : percent(figures.weatherNrmse),
      met: figures.weatherNrmse === null ? null : figures.weatherNrmse <= TARGETS.weatherNrmse,
    },
    {
      target: `solar (b), no weather: skill vs smart persistence ≥ ${TARGETS.historySkill.toFixed(2)}`,
      figure: figures.historySkill === null ? null : threeDecimals(figures.historySkill),
      met: figures.historySkill === null ? null : figures.historySkill >= TARGETS.historySkill,
    },
    {
      target: `load: skill vs same-as-yesterday ≥ ${TARGETS.loadSkill.toFixed(2)}`,
      figure: figures.loadSkill === null ? null : threeDecimals(figures.loadSkill),
      met: figures.loadSkill === null ? null : figures.loadSkill >= TARGETS.loadSkill,
    },
    {
      target: `orientation within ${TARGETS.tiltDegrees}° tilt / ${TARGETS.azimuthDegrees}° azimuth of --installed`,
      figure:
        orientation && inferred && installed
          ? `${inferred.tilt}°/${inferred.azimuth}° vs ${installed.tilt}°/${installed.azimuth}° ` +
            `(off by ${orientation.tilt}° / ${orientation.azimuth}°)`
          : null,
      met: orientation
        ? orientation.tilt <= TARGETS.tiltDegrees && orientation.azimuth <= TARGETS.azimuthDegrees
        : null,
    },
  ];
}

export function targetLine(check: TargetCheck): string {
  const verdict = check.met === null ? 'not checked' : check.met ? 'met' : 'NOT met';
  return `${check.target}: ${check.figure ?? '—'}, ${verdict}`;
}
