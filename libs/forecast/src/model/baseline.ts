import { Site } from '../forecaster';
import type { FeatureContext } from './features';
import { cellDerating, defaultOrientation } from './orientation';
import { decompose, planeOfArray } from './pv-physics';
import { HOUR_MS } from './pv-physics';
import { Timeline } from './timeline';
import { cloudTransmission } from './weather-codes';

/**
 * The physics-only baseline, for sources with no training data: nothing learned, nothing fitted.
 * Solar is the weather's GHI (or the clear sky dimmed by cloud cover or weather code, or by a
 * climatological 0.7 without any weather) on the array as its owner installed it (else an
 * equator-facing plane tilted 30°), times the installed power and a performance ratio of 0.8,
 * with a −0.4 %/K cell temperature derating; zero whenever the clear sky is dark. Load is the mean of the same hour over the recent history or,
 * with none, a typical household day.
 */

/** Installed power assumed when the source does not say, W (what the synthetic devices assume too). */
export const DEFAULT_CAPACITY_WATTS = 5_000;
export const BASELINE_PERFORMANCE_RATIO = 0.8;
/** Mean clear-sky index assumed without any weather (mid-latitude climatology). */
export const CLIMATOLOGICAL_CLEARNESS = 0.7;

/** Baseline solar power (W) for every hour of the timeline. */
export function baselineSolar(site: Site, timeline: Timeline): Float64Array {
  const { geometry } = timeline;
  const capacity = site.capacityWatts && site.capacityWatts > 0 ? site.capacityWatts : DEFAULT_CAPACITY_WATTS;
  const ghi = new Float64Array(timeline.hours);
  for (let hour = 0; hour < timeline.hours; hour++) {
    const clear = geometry.clearGhiMean[hour];
    const given = timeline.shortwave[hour];
    const transmission = cloudTransmission(timeline.cloudCover[hour], timeline.weatherCode[hour]);
    ghi[hour] = Number.isFinite(given) ? given : clear * (transmission ?? CLIMATOLOGICAL_CLEARNESS);
  }
  const orientation = site.orientation ?? defaultOrientation(site.latitude);
  const plane = planeOfArray(geometry, decompose(geometry, ghi), orientation);
  return plane.map((poa, hour) => {
    if (!(geometry.clearGhiMean[hour] > 0) || !(poa > 0)) return 0;
    const derate = cellDerating(poa, timeline.temperature[hour]);
    return Math.min(capacity, ((capacity * poa) / 1000) * BASELINE_PERFORMANCE_RATIO * derate);
  });
}

/** A household day without history, W by local hour: base load, morning and evening peaks. */
export function typicalLoad(localHour: number): number {
  const bump = (centre: number, width: number) => Math.exp(-(((localHour - centre) / width) ** 2));
  return 300 + 500 * bump(7.5, 1.2) + 250 * bump(13, 1.8) + 800 * bump(19.5, 1.8);
}

/** Mean of the same hour of day over the last `days` days before `origin`, or NaN with none. */
export function recentHourMean(series: Float64Array, target: number, origin: number, days = 14): number {
  const first = Math.max(1, Math.ceil((target - origin + 1) / 24));
  let sum = 0;
  let count = 0;
  for (let day = first; day < first + days; day++) {
    const hour = target - 24 * day;
    if (hour < 0) break;
    if (Number.isFinite(series[hour])) {
      sum += series[hour];
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}

/** Share of the last 3 days' departure from the 14-day mean level that the load profile follows. */
const RECENT_LEVEL_WEIGHT = 0.5;

function meanLoadBefore(load: Float64Array, origin: number, hours: number): number {
  let sum = 0;
  let count = 0;
  for (let hour = Math.max(0, origin - hours); hour < Math.min(load.length, origin); hour++) {
    if (Number.isFinite(load[hour])) {
      sum += load[hour];
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}

/**
 * Baseline load (W), the profile: the mean of the same hour over the 14 days before the origin,
 * moved by half of how far the last 3 days' mean load is from the 14 days' (a cold spell, a
 * holiday: levels persist for days, the hour's shape less so); without history a typical
 * household day in local mean solar time. The load trees learn the correction to it.
 */
export function baselineLoad(timeline: Timeline, hour: number, origin: number): number {
  const recent = recentHourMean(timeline.load, hour, origin);
  if (Number.isFinite(recent)) {
    const shift = meanLoadBefore(timeline.load, origin, 72) - meanLoadBefore(timeline.load, origin, 14 * 24);
    return Math.max(0, recent + (Number.isFinite(shift) ? RECENT_LEVEL_WEIGHT * shift : 0));
  }
  const utcHour = (timeline.start + hour * HOUR_MS) / HOUR_MS + 0.5;
  const localHour = (((utcHour + timeline.geometry.longitude / 15) % 24) + 24) % 24;
  return typicalLoad(localHour);
}

/** Mean load over the 7 days before the origin (W, at least 50), the scale of the load trees' output. */
export function loadLevel(context: FeatureContext, origin: number): number {
  const { load, loadCount } = context.prefix;
  const to = Math.max(0, Math.min(context.timeline.hours, origin));
  const from = Math.max(0, to - 168);
  const count = loadCount[to] - loadCount[from];
  return count > 0 ? Math.max(50, (load[to] - load[from]) / count) : 500;
}
