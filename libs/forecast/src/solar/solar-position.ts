/**
 * Where the sun stands, seen from a place on Earth at an instant.
 *
 * The algorithm is the one of NOAA's solar calculator spreadsheet (NOAA Global Monitoring
 * Laboratory, "Solar Calculation Details"), itself built on the low-accuracy formulas of Jean Meeus,
 * "Astronomical Algorithms": Julian century, the sun's geometric mean longitude and anomaly, the
 * equation of center, apparent longitude, corrected obliquity, declination, equation of time, true
 * solar time and hour angle, then zenith and azimuth, with the sheet's atmospheric refraction
 * correction. Written from the published formulas. NOAA gives it as good to about 0.01° for dates
 * between 1800 and 2100 and latitudes within ±72°, which is far better than any forecast needs.
 */

export interface SolarPosition {
  /** Degrees above the horizon, corrected for atmospheric refraction; negative at night. */
  elevation: number;
  /** Degrees clockwise from true north, 0 ≤ azimuth < 360. */
  azimuth: number;
  /** 90° − elevation: the refraction-corrected (apparent) zenith angle. */
  zenith: number;
  /** The sun's declination, degrees. */
  declination: number;
  /** Apparent minus mean solar time, minutes. */
  equationOfTime: number;
  /** Degrees; negative before solar noon, positive after, −180..180. */
  hourAngle: number;
}

const MS_PER_DAY = 86_400_000;
/** Julian day of the Unix epoch, 1970-01-01T00:00Z. */
const UNIX_EPOCH_JULIAN_DAY = 2_440_587.5;
/** Julian day of J2000.0, 2000-01-01T12:00 TT. */
const J2000 = 2_451_545;

const radians = (degrees: number) => (degrees * Math.PI) / 180;
const degrees = (radians: number) => (radians * 180) / Math.PI;
/** Floored modulo: the result has the sign of `divisor`, as the spreadsheet's MOD does. */
const mod = (value: number, divisor: number) => ((value % divisor) + divisor) % divisor;
/** Rounding can push a cosine a hair past ±1, which would make acos return NaN. */
const clampUnit = (value: number) => Math.min(1, Math.max(-1, value));

export function julianDay(date: Date): number {
  return date.getTime() / MS_PER_DAY + UNIX_EPOCH_JULIAN_DAY;
}

/** Julian centuries since J2000.0 (UT is used for TT: ΔT, about a minute, is below the accuracy). */
export function julianCentury(date: Date): number {
  return (julianDay(date) - J2000) / 36_525;
}

export function solarPosition(date: Date, latitude: number, longitude: number): SolarPosition {
  const t = julianCentury(date);

  const meanLongitude = mod(280.46646 + t * (36000.76983 + t * 0.0003032), 360);
  const meanAnomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t);
  const eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
  const m = radians(meanAnomaly);
  const equationOfCenter =
    Math.sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
    Math.sin(2 * m) * (0.019993 - 0.000101 * t) +
    Math.sin(3 * m) * 0.000289;
  const trueLongitude = meanLongitude + equationOfCenter;

  // Nutation and aberration, through the longitude of the moon's ascending node.
  const node = radians(125.04 - 1934.136 * t);
  const apparentLongitude = radians(trueLongitude - 0.00569 - 0.00478 * Math.sin(node));
  const meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60;
  const obliquity = radians(meanObliquity + 0.00256 * Math.cos(node));

  const declination = Math.asin(clampUnit(Math.sin(obliquity) * Math.sin(apparentLongitude)));

  const y = Math.tan(obliquity / 2) ** 2;
  const l0 = radians(meanLongitude);
  const equationOfTime =
    4 *
    degrees(
      y * Math.sin(2 * l0) -
        2 * eccentricity * Math.sin(m) +
        4 * eccentricity * y * Math.sin(m) * Math.cos(2 * l0) -
        0.5 * y * y * Math.sin(4 * l0) -
        1.25 * eccentricity * eccentricity * Math.sin(2 * m),
    );

  const minutesOfUtcDay = mod(date.getTime(), MS_PER_DAY) / 60_000;
  const trueSolarTime = mod(minutesOfUtcDay + equationOfTime + 4 * longitude, 1440);
  const hourAngle = trueSolarTime / 4 - 180;

  const phi = radians(latitude);
  const h = radians(hourAngle);
  const cosZenith = clampUnit(
    Math.sin(phi) * Math.sin(declination) + Math.cos(phi) * Math.cos(declination) * Math.cos(h),
  );
  const geometricZenith = Math.acos(cosZenith);
  const geometricElevation = 90 - degrees(geometricZenith);
  const elevation = geometricElevation + atmosphericRefraction(geometricElevation);

  return {
    elevation,
    azimuth: azimuthOf(phi, declination, geometricZenith, hourAngle),
    zenith: 90 - elevation,
    declination: degrees(declination),
    equationOfTime,
    hourAngle,
  };
}

/**
 * NOAA's approximate refraction (degrees) for a geometric elevation in degrees: none near the
 * zenith, Bennett-like terms above 5°, a polynomial fitted for the horizon band, a small term below.
 */
export function atmosphericRefraction(elevation: number): number {
  if (elevation > 85) return 0;
  const tangent = Math.tan(radians(elevation));
  let arcSeconds: number;
  if (elevation > 5) {
    arcSeconds = 58.1 / tangent - 0.07 / tangent ** 3 + 0.000086 / tangent ** 5;
  } else if (elevation > -0.575) {
    const e = elevation;
    arcSeconds = 1735 + e * (-518.2 + e * (103.4 + e * (-12.79 + e * 0.711)));
  } else {
    arcSeconds = -20.772 / tangent;
  }
  return arcSeconds / 3600;
}

function azimuthOf(phi: number, declination: number, zenith: number, hourAngle: number): number {
  const denominator = Math.cos(phi) * Math.sin(zenith);
  // At a pole, or with the sun exactly overhead, every direction is as good as any other:
  // report the meridian the sun crosses at noon.
  if (Math.abs(denominator) < 1e-12) return declination <= phi ? 180 : 0;
  const fromSouth = degrees(
    Math.acos(clampUnit((Math.sin(phi) * Math.cos(zenith) - Math.sin(declination)) / denominator)),
  );
  return hourAngle > 0 ? mod(fromSouth + 180, 360) : mod(540 - fromSouth, 360);
}
