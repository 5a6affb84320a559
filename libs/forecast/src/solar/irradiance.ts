import { solarPosition } from './solar-position';

/** Total solar irradiance at the mean Sun–Earth distance, W/m² (Kopp & Lean 2011). */
export const SOLAR_CONSTANT = 1361;

const MS_PER_DAY = 86_400_000;

/** Day of the UTC year, 1 on January 1st. */
export function dayOfYear(date: Date): number {
  return Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / MS_PER_DAY) + 1;
}

/**
 * Irradiance on a plane facing the sun at the top of the atmosphere, W/m²: the solar constant with
 * the eccentricity correction by day of year (Duffie & Beckman, "Solar Engineering of Thermal
 * Processes", eq. 1.4.1a), so within ±3.3 % of it.
 */
export function extraterrestrialIrradiance(date: Date): number {
  return SOLAR_CONSTANT * (1 + 0.033 * Math.cos((2 * Math.PI * dayOfYear(date)) / 365));
}

/**
 * Clear-sky global horizontal irradiance for a given solar elevation (degrees), W/m²: the Haurwitz
 * model, 1098 · cos z · exp(−0.059 / cos z). It needs nothing but the sun's position, which is why
 * it suits a baseline; 0 when the sun is at or below the horizon.
 */
export function haurwitzGhi(elevation: number): number {
  if (elevation <= 0) return 0;
  const cosZenith = Math.sin((elevation * Math.PI) / 180);
  return 1098 * cosZenith * Math.exp(-0.059 / cosZenith);
}

/** Clear-sky GHI (W/m²) at a place and instant, from the apparent solar elevation. */
export function clearSkyGhi(date: Date, latitude: number, longitude: number): number {
  return haurwitzGhi(solarPosition(date, latitude, longitude).elevation);
}

/**
 * Below this clear-sky irradiance (W/m²), around sunrise and sunset, a ratio to it says more about
 * timing and horizon than about clouds.
 */
export const MIN_CLEAR_SKY_FOR_INDEX = 10;

/**
 * Clear-sky index: measured (or forecast) GHI over clear-sky GHI, clamped to 0..1.5 (broken clouds
 * can briefly lift irradiance above clear sky). Null when the clear sky is too dark for a ratio.
 */
export function clearSkyIndex(ghi: number, clearSky: number): number | null {
  if (!Number.isFinite(ghi) || !(clearSky >= MIN_CLEAR_SKY_FOR_INDEX)) return null;
  return Math.min(1.5, Math.max(0, ghi / clearSky));
}
