import { extraterrestrialIrradiance, haurwitzGhi } from '../solar/irradiance';
import { solarPosition } from '../solar/solar-position';

// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { cos, max, min, sin } = Math;
const isFiniteNumber = Number.isFinite;

/**
 * From an hour's global horizontal irradiance to the irradiance on a tilted array, for hourly
 * means. Each hour is sampled at `SUBSTEPS` instants so sunrise and sunset hours come out right:
 * the hour's GHI is spread over them in proportion to the clear sky (its clear-sky index is taken
 * as constant within the hour), split into beam and diffuse with Erbs et al. (1982), and carried
 * onto the plane with the Hay–Davies sky model (isotropic diffuse plus a circumsolar part
 * weighted by the beam's share of the extraterrestrial irradiance) and ground reflection.
 */

export const HOUR_MS = 3_600_000;
/** Instants per hour at which the sun's position is taken (every 10 minutes, mid-interval). */
export const SUBSTEPS = 6;
/** Ground reflectance for the reflected part of the plane's irradiance. */
export const ALBEDO = 0.2;
/** Below this cos(zenith) (zenith beyond about 86.3°, pvlib's bound for Erbs) there is no beam. */
const MIN_COS_ZENITH = 0.065;
const RADIANS = Math.PI / 180;

/** A flat array's orientation, degrees: tilt from horizontal, azimuth clockwise from north (180 = south). */
export interface Orientation {
  tilt: number;
  azimuth: number;
}

/** The sun over a run of consecutive UTC hours, at `SUBSTEPS` instants per hour. */
export interface SunGeometry {
  /** Start of the first hour, ms. */
  start: number;
  hours: number;
  latitude: number;
  longitude: number;
  /** Per instant (`hour * SUBSTEPS + step`): cos(zenith), 0 when the sun is down. */
  cosZenith: Float64Array;
  /** Per instant: sin(zenith)·sin(azimuth) and sin(zenith)·cos(azimuth), the sun's east and north components. */
  sunEast: Float64Array;
  sunNorth: Float64Array;
  /** Per instant: Haurwitz clear-sky GHI, W/m². */
  clearGhi: Float64Array;
  /** Per hour: extraterrestrial irradiance at normal incidence, W/m². */
  extraterrestrial: Float64Array;
  /** Per hour: mean Haurwitz clear-sky GHI, W/m² (0: the sun stays down all hour). */
  clearGhiMean: Float64Array;
  /** Per hour: mean extraterrestrial irradiance on the horizontal, W/m². */
  extraterrestrialHorizontal: Float64Array;
  /** Per hour: mean solar elevation, degrees (negative at night). */
  elevation: Float64Array;
  /** Per hour: solar azimuth at the middle of the hour, degrees from north. */
  azimuth: Float64Array;
}

export function sunGeometry(start: number, hours: number, latitude: number, longitude: number): SunGeometry {
  const instants = hours * SUBSTEPS;
  const geometry: SunGeometry = {
    start,
    hours,
    latitude,
    longitude,
    cosZenith: new Float64Array(instants),
    sunEast: new Float64Array(instants),
    sunNorth: new Float64Array(instants),
    clearGhi: new Float64Array(instants),
    extraterrestrial: new Float64Array(hours),
    clearGhiMean: new Float64Array(hours),
    extraterrestrialHorizontal: new Float64Array(hours),
    elevation: new Float64Array(hours),
    azimuth: new Float64Array(hours),
  };
  for (let hour = 0; hour < hours; hour++) {
    const hourStart = start + hour * HOUR_MS;
    const extraterrestrial = extraterrestrialIrradiance(new Date(hourStart + HOUR_MS / 2));
    geometry.extraterrestrial[hour] = extraterrestrial;
    let clearSum = 0;
    let horizontalSum = 0;
    let elevationSum = 0;
    for (let step = 0; step < SUBSTEPS; step++) {
      const at = hourStart + ((step + 0.5) * HOUR_MS) / SUBSTEPS;
      const position = solarPosition(new Date(at), latitude, longitude);
      const index = hour * SUBSTEPS + step;
      elevationSum += position.elevation;
      if (step === SUBSTEPS / 2) geometry.azimuth[hour] = position.azimuth;
      if (position.elevation <= 0) continue;
      const zenith = position.zenith * RADIANS;
      const azimuth = position.azimuth * RADIANS;
      const cosZenith = cos(zenith);
      geometry.cosZenith[index] = cosZenith;
      geometry.sunEast[index] = sin(zenith) * sin(azimuth);
      geometry.sunNorth[index] = sin(zenith) * cos(azimuth);
      const clear = haurwitzGhi(position.elevation);
      geometry.clearGhi[index] = clear;
      clearSum += clear;
      horizontalSum += extraterrestrial * cosZenith;
    }
    geometry.clearGhiMean[hour] = clearSum / SUBSTEPS;
    geometry.extraterrestrialHorizontal[hour] = horizontalSum / SUBSTEPS;
    geometry.elevation[hour] = elevationSum / SUBSTEPS;
  }
  return geometry;
}

/** Erbs et al. (1982): the diffuse share of GHI from the clearness index kt. */
export function erbsDiffuseFraction(clearness: number): number {
  const kt = max(0, clearness);
  if (kt <= 0.22) return 1 - 0.09 * kt;
  if (kt <= 0.8) return 0.9511 + kt * (-0.1604 + kt * (4.388 + kt * (-16.638 + kt * 12.336)));
  return 0.165;
}

/** An hour's GHI split per instant into direct normal, diffuse horizontal and global horizontal, W/m². */
export interface IrradianceComponents {
  dni: Float64Array;
  dhi: Float64Array;
  ghi: Float64Array;
  /** Hay–Davies anisotropy index: DNI over extraterrestrial irradiance, 0..1. */
  anisotropy: Float64Array;
  /** Per hour: false where the hour's GHI was unknown. */
  known: Uint8Array;
}

/**
 * Decomposes hourly mean GHI (NaN where unknown) at each instant. The hour's clear-sky index is
 * capped at 1.5, as `clearSkyIndex` does; when the sun is down all hour everything is 0.
 */
export function decompose(geometry: SunGeometry, hourlyGhi: ArrayLike<number>): IrradianceComponents {
  const instants = geometry.hours * SUBSTEPS;
  const components: IrradianceComponents = {
    dni: new Float64Array(instants),
    dhi: new Float64Array(instants),
    ghi: new Float64Array(instants),
    anisotropy: new Float64Array(instants),
    known: new Uint8Array(geometry.hours),
  };
  for (let hour = 0; hour < geometry.hours; hour++) {
    const ghiHour = hourlyGhi[hour];
    if (!isFiniteNumber(ghiHour)) continue;
    components.known[hour] = 1;
    const clearMean = geometry.clearGhiMean[hour];
    if (clearMean <= 0 || ghiHour <= 0) continue;
    const index = min(1.5, ghiHour / clearMean);
    const extraterrestrial = geometry.extraterrestrial[hour];
    for (let step = 0; step < SUBSTEPS; step++) {
      const at = hour * SUBSTEPS + step;
      const cosZenith = geometry.cosZenith[at];
      if (cosZenith <= 0) continue;
      const ghi = index * geometry.clearGhi[at];
      // With the sun this low a beam/diffuse split is noise: all of it counts as diffuse.
      const beamAllowed = cosZenith >= MIN_COS_ZENITH;
      const clearness = beamAllowed ? min(1, ghi / (extraterrestrial * cosZenith)) : 0;
      const dhi = beamAllowed ? ghi * erbsDiffuseFraction(clearness) : ghi;
      const dni = beamAllowed ? (ghi - dhi) / cosZenith : 0;
      components.ghi[at] = ghi;
      components.dhi[at] = dhi;
      components.dni[at] = dni;
      components.anisotropy[at] = min(1, max(0, dni / extraterrestrial));
    }
  }
  return components;
}

/** The plane's unit normal (east, north, up) for an orientation. */
export function planeNormal(orientation: Orientation): [number, number, number] {
  const tilt = orientation.tilt * RADIANS;
  const azimuth = orientation.azimuth * RADIANS;
  return [sin(tilt) * sin(azimuth), sin(tilt) * cos(azimuth), cos(tilt)];
}

/** Cosine of the angle of incidence of the sun on the plane at the middle of each hour (0 behind it). */
export function cosIncidenceAtMidHour(geometry: SunGeometry, orientation: Orientation): Float64Array {
  const [east, north, up] = planeNormal(orientation);
  const out = new Float64Array(geometry.hours);
  for (let hour = 0; hour < geometry.hours; hour++) {
    const at = hour * SUBSTEPS + SUBSTEPS / 2;
    if (geometry.cosZenith[at] <= 0) continue;
    out[hour] = max(
      0,
      geometry.sunEast[at] * east + geometry.sunNorth[at] * north + geometry.cosZenith[at] * up,
    );
  }
  return out;
}

/**
 * Hour-mean irradiance on the plane (W/m²), Hay–Davies; NaN for hours whose GHI was unknown.
 * `out` may be passed to avoid an allocation in a search over orientations.
 */
export function planeOfArray(
  geometry: SunGeometry,
  components: IrradianceComponents,
  orientation: Orientation,
  out = new Float64Array(geometry.hours),
): Float64Array {
  const [east, north, up] = planeNormal(orientation);
  const skyView = (1 + up) / 2;
  const groundView = (ALBEDO * (1 - up)) / 2;
  for (let hour = 0; hour < geometry.hours; hour++) {
    if (!components.known[hour]) {
      out[hour] = NaN;
      continue;
    }
    let sum = 0;
    for (let step = 0; step < SUBSTEPS; step++) {
      const at = hour * SUBSTEPS + step;
      const ghi = components.ghi[at];
      if (ghi <= 0) continue;
      const cosZenith = geometry.cosZenith[at];
      const cosIncidence = max(
        0,
        geometry.sunEast[at] * east + geometry.sunNorth[at] * north + cosZenith * up,
      );
      const anisotropy = components.anisotropy[at];
      // pvlib bounds cos(zenith) for Rb at cos(89°).
      const beamRatio = cosIncidence / max(cosZenith, 0.01745);
      sum +=
        components.dni[at] * cosIncidence +
        components.dhi[at] * (anisotropy * beamRatio + (1 - anisotropy) * skyView) +
        ghi * groundView;
    }
    out[hour] = sum / SUBSTEPS;
  }
  return out;
}
