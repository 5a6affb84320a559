/**
 * How much of the clear-sky irradiance gets through, from what a forecast says about clouds when
 * it gives no irradiance: cloud cover through Kasten & Czeplak (1980), GHI / GHI_clear =
 * 1 − 0.75·(N/8)^3.4 with N in oktas, or else a WMO weather code through a table of typical
 * clear-sky indices (fog, drizzle and rain are overcast skies; showers come with broken clouds).
 */

/** Typical clear-sky index per WMO code (Open-Meteo's subset, codes 0–99). */
export function weatherCodeTransmission(code: number): number | null {
  if (!Number.isFinite(code) || code < 0) return null;
  if (code === 0) return 0.98;
  if (code === 1) return 0.88;
  if (code === 2) return 0.65;
  if (code === 3) return 0.35;
  if (code === 45 || code === 48) return 0.3; // fog
  if (code >= 51 && code <= 57) return 0.3; // drizzle
  if (code >= 61 && code <= 67) return 0.22; // rain, freezing rain
  if (code >= 71 && code <= 77) return 0.2; // snow
  if (code >= 80 && code <= 82) return 0.4; // rain showers
  if (code >= 85 && code <= 86) return 0.3; // snow showers
  if (code >= 95) return 0.18; // thunderstorm
  return null;
}

/** Kasten & Czeplak from cloud cover in %. */
export function cloudCoverTransmission(cloudCover: number): number | null {
  if (!Number.isFinite(cloudCover)) return null;
  const fraction = Math.min(1, Math.max(0, cloudCover / 100));
  return 1 - 0.75 * fraction ** 3.4;
}

/** Cloud cover when given, else the weather code; null when neither says anything. */
export function cloudTransmission(cloudCover: number, weatherCode: number): number | null {
  return cloudCoverTransmission(cloudCover) ?? weatherCodeTransmission(weatherCode);
}
