import { HourlyObservation, HourlyWeather, Site } from '../forecaster';
import { HOUR_MS, SunGeometry, sunGeometry } from './pv-physics';

// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { floor, max, min, round } = Math;
const isFiniteNumber = Number.isFinite;

/**
 * Every series the model looks at, on one grid of consecutive UTC hours: telemetry and weather
 * (NaN where missing) and the sun's geometry. Building it is where untidy input is made tidy:
 * hours are floored to the UTC hour, the last of duplicates wins, values outside physical ranges
 * are dropped (negative power, state of charge outside 0–100).
 */
export interface Timeline {
  /** Start of the first hour, ms. */
  start: number;
  hours: number;
  /** W */
  solar: Float64Array;
  /** W */
  load: Float64Array;
  /** % */
  stateOfCharge: Float64Array;
  /** °C */
  temperature: Float64Array;
  /** W/m², as given by the weather input. */
  shortwave: Float64Array;
  /** % */
  cloudCover: Float64Array;
  /** WMO code */
  weatherCode: Float64Array;
  uvIndex: Float64Array;
  /** mm */
  precipitation: Float64Array;
  geometry: SunGeometry;
}

export const hourFloor = (ms: number) => floor(ms / HOUR_MS) * HOUR_MS;

const finite = (value: number | null | undefined): value is number =>
  typeof value === 'number' && isFiniteNumber(value);

function validTime(date: unknown): number | null {
  if (!(date instanceof Date)) return null;
  const ms = date.getTime();
  return isFiniteNumber(ms) ? ms : null;
}

/** A timeline over [start, end) (hour starts, ms). Observations and weather outside it are ignored. */
export function buildTimeline(
  site: Site,
  history: readonly HourlyObservation[],
  weather: readonly HourlyWeather[],
  start: number,
  end: number,
): Timeline {
  const hours = max(0, round((end - start) / HOUR_MS));
  const series = () => new Float64Array(hours).fill(NaN);
  const timeline: Timeline = {
    start,
    hours,
    solar: series(),
    load: series(),
    stateOfCharge: series(),
    temperature: series(),
    shortwave: series(),
    cloudCover: series(),
    weatherCode: series(),
    uvIndex: series(),
    precipitation: series(),
    geometry: sunGeometry(start, hours, site.latitude, site.longitude),
  };
  const slot = (date: unknown): number => {
    const ms = validTime(date);
    if (ms === null) return -1;
    const index = round((hourFloor(ms) - start) / HOUR_MS);
    return index >= 0 && index < hours ? index : -1;
  };
  for (const observation of history) {
    const index = slot(observation.hour);
    if (index < 0) continue;
    if (finite(observation.solarPower) && observation.solarPower >= 0)
      timeline.solar[index] = observation.solarPower;
    if (finite(observation.loadPower) && observation.loadPower >= 0)
      timeline.load[index] = observation.loadPower;
    const soc = observation.stateOfCharge;
    if (finite(soc) && soc >= 0 && soc <= 100) timeline.stateOfCharge[index] = soc;
  }
  for (const hour of weather) {
    const index = slot(hour.hour);
    if (index < 0) continue;
    if (finite(hour.temperature)) timeline.temperature[index] = hour.temperature;
    if (finite(hour.shortwaveRadiation) && hour.shortwaveRadiation >= 0)
      timeline.shortwave[index] = hour.shortwaveRadiation;
    if (finite(hour.cloudCover)) timeline.cloudCover[index] = min(100, max(0, hour.cloudCover));
    if (finite(hour.weatherCode)) timeline.weatherCode[index] = hour.weatherCode;
    if (finite(hour.uvIndex)) timeline.uvIndex[index] = max(0, hour.uvIndex);
    if (finite(hour.precipitation)) timeline.precipitation[index] = max(0, hour.precipitation);
  }
  return timeline;
}

/** First and last hour (ms) with any telemetry, or null when there is none. */
export function historySpan(history: readonly HourlyObservation[]): { first: number; last: number } | null {
  let first = Infinity;
  let last = -Infinity;
  for (const observation of history) {
    const ms = validTime(observation.hour);
    if (ms === null) continue;
    if (
      !finite(observation.solarPower) &&
      !finite(observation.loadPower) &&
      !finite(observation.stateOfCharge)
    )
      continue;
    first = min(first, hourFloor(ms));
    last = max(last, hourFloor(ms));
  }
  return first <= last ? { first, last } : null;
}
