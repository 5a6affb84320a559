import { WeatherDay, WeatherForecast, WeatherHour } from './weather-forecast';

/**
 * Open-Meteo's forecast API (`/v1/forecast`): the query we send and a strict reading of the
 * JSON it answers. Pure, so the shape rules are unit-tested without a server.
 *
 * With `timezone=auto` every time in the answer is local wall time at the coordinates, without
 * an offset, and the provider applies ONE offset (`utc_offset_seconds`, the one valid when it
 * answers) to the whole series, DST changes included (open-meteo/open-meteo#261, #1255). So
 * `local - utc_offset_seconds` is exactly the UTC instant of an hourly time.
 */

export const FORECAST_DAYS = 8;

/** Daily variables, in the order of `WeatherDay`. */
export const OPEN_METEO_DAILY = [
  'temperature_2m_max',
  'temperature_2m_min',
  'shortwave_radiation_sum',
  'weather_code',
  'uv_index_max',
  'precipitation_sum',
  'sunrise',
  'sunset',
] as const;

/** Hourly variables, in the order of `WeatherHour`. */
export const OPEN_METEO_HOURLY = [
  'temperature_2m',
  'shortwave_radiation',
  'cloud_cover',
  'weather_code',
  'uv_index',
  'precipitation',
] as const;

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** The query parameters of one forecast request. */
export function openMeteoQuery({ latitude, longitude }: Coordinates): Record<string, string> {
  return {
    latitude: String(latitude),
    longitude: String(longitude),
    daily: OPEN_METEO_DAILY.join(','),
    hourly: OPEN_METEO_HOURLY.join(','),
    timezone: 'auto',
    forecast_days: String(FORECAST_DAYS),
    timeformat: 'iso8601',
  };
}

/** An answer that is not the forecast we asked for: what is wrong with it, for the log. */
export class MalformedForecastError extends Error {
  override readonly name = 'MalformedForecastError';
}

type Json = Record<string, unknown>;

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;
/** Real offsets lie within UTC-12..UTC+14; anything beyond a day's worth is nonsense. */
const MAX_OFFSET_SECONDS = 18 * 3600;
/** `weather_code` was called `weathercode` before Open-Meteo's 2023 renaming; both are read. */
const WEATHER_CODE_NAMES = ['weather_code', 'weathercode'];

/** Reads an Open-Meteo forecast answer, or throws `MalformedForecastError` saying why not. */
export function parseOpenMeteoForecast(body: unknown): WeatherForecast {
  const root = object(body, 'answer');
  if (root.error === true) {
    throw new MalformedForecastError(
      `provider error: ${typeof root.reason === 'string' ? root.reason : '?'}`,
    );
  }
  const utcOffsetSeconds = root.utc_offset_seconds;
  if (
    typeof utcOffsetSeconds !== 'number' ||
    !Number.isInteger(utcOffsetSeconds) ||
    Math.abs(utcOffsetSeconds) > MAX_OFFSET_SECONDS
  ) {
    throw new MalformedForecastError('utc_offset_seconds is not a plausible offset');
  }
  const timezone = root.timezone;
  if (typeof timezone !== 'string' || timezone === '') {
    throw new MalformedForecastError('timezone is missing');
  }
  return {
    timezone,
    utcOffsetSeconds,
    days: parseDaily(object(root.daily, 'daily')),
    hours: parseHourly(object(root.hourly, 'hourly'), utcOffsetSeconds),
  };
}

function parseDaily(daily: Json): WeatherDay[] {
  const dates = times(daily, 'daily', LOCAL_DATE);
  const read = (names: string[]) => column(daily, 'daily', names, dates.length);
  const temperatureMax = numbers(read(['temperature_2m_max']), 'daily.temperature_2m_max');
  const temperatureMin = numbers(read(['temperature_2m_min']), 'daily.temperature_2m_min');
  const radiation = numbers(read(['shortwave_radiation_sum']), 'daily.shortwave_radiation_sum');
  const codes = weatherCodes(read(WEATHER_CODE_NAMES), 'daily.weather_code');
  const uvIndexMax = numbers(read(['uv_index_max']), 'daily.uv_index_max');
  const precipitation = numbers(read(['precipitation_sum']), 'daily.precipitation_sum');
  const sunrise = localDateTimes(read(['sunrise']), 'daily.sunrise');
  const sunset = localDateTimes(read(['sunset']), 'daily.sunset');
  return dates.map((date, index) => ({
    date,
    temperatureMax: temperatureMax[index],
    temperatureMin: temperatureMin[index],
    shortwaveRadiationSum: radiation[index],
    weatherCode: codes[index],
    uvIndexMax: uvIndexMax[index],
    precipitationSum: precipitation[index],
    sunrise: sunrise[index],
    sunset: sunset[index],
  }));
}

function parseHourly(hourly: Json, utcOffsetSeconds: number): WeatherHour[] {
  const localTimes = times(hourly, 'hourly', LOCAL_DATE_TIME);
  const read = (names: string[]) => column(hourly, 'hourly', names, localTimes.length);
  const temperature = numbers(read(['temperature_2m']), 'hourly.temperature_2m');
  const radiation = numbers(read(['shortwave_radiation']), 'hourly.shortwave_radiation');
  const cloudCover = numbers(read(['cloud_cover']), 'hourly.cloud_cover');
  const codes = weatherCodes(read(WEATHER_CODE_NAMES), 'hourly.weather_code');
  const uvIndex = numbers(read(['uv_index']), 'hourly.uv_index');
  const precipitation = numbers(read(['precipitation']), 'hourly.precipitation');
  return localTimes.map((local, index) => ({
    ts: new Date(wallClockMillis(local)! - utcOffsetSeconds * 1000),
    temperature: temperature[index],
    shortwaveRadiation: radiation[index],
    cloudCover: cloudCover[index],
    weatherCode: codes[index],
    uvIndex: uvIndex[index],
    precipitation: precipitation[index],
  }));
}

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedForecastError(`${path} is not an object`);
  }
  return value as Json;
}

/** The `time` array: at least one valid local time, strictly increasing (so no duplicate keys). */
function times(block: Json, path: string, pattern: RegExp): string[] {
  const values = block.time;
  if (!Array.isArray(values) || values.length === 0) {
    throw new MalformedForecastError(`${path}.time is not a non-empty array`);
  }
  let previous = -Infinity;
  return values.map((value, index) => {
    const millis = typeof value === 'string' && pattern.test(value) ? wallClockMillis(value) : undefined;
    if (millis === undefined) throw new MalformedForecastError(`${path}.time[${index}] is not a local time`);
    if (millis <= previous) throw new MalformedForecastError(`${path}.time is not increasing at ${index}`);
    previous = millis;
    return value as string;
  });
}

/** The first of `names` present, as an array as long as the `time` array. */
function column(block: Json, path: string, names: string[], length: number): unknown[] {
  const name = names.find((candidate) => candidate in block);
  if (name === undefined) throw new MalformedForecastError(`${path}.${names[0]} is missing`);
  const values = block[name];
  if (!Array.isArray(values)) throw new MalformedForecastError(`${path}.${name} is not an array`);
  if (values.length !== length) {
    throw new MalformedForecastError(`${path}.${name} has ${values.length} values for ${length} times`);
  }
  return values;
}

function numbers(values: unknown[], path: string): (number | null)[] {
  return values.map((value, index) => {
    if (value === null || (typeof value === 'number' && Number.isFinite(value))) return value;
    throw new MalformedForecastError(`${path}[${index}] is neither a number nor null`);
  });
}

/** WMO 4677 present-weather codes: integers 0..99. */
function weatherCodes(values: unknown[], path: string): (number | null)[] {
  return numbers(values, path).map((value, index) => {
    if (value === null || (Number.isInteger(value) && value >= 0 && value <= 99)) return value;
    throw new MalformedForecastError(`${path}[${index}] is not a WMO weather code`);
  });
}

function localDateTimes(values: unknown[], path: string): (string | null)[] {
  return values.map((value, index) => {
    if (value === null) return null;
    if (typeof value === 'string' && LOCAL_DATE_TIME.test(value) && wallClockMillis(value) !== undefined) {
      return value.slice(0, 16);
    }
    throw new MalformedForecastError(`${path}[${index}] is not a local date-time`);
  });
}

/**
 * A local `YYYY-MM-DD[THH:mm[:ss]]` read as if it were UTC (so differences are exact), or
 * undefined when it names no real moment (month 13, 31 June, 25:00).
 */
function wallClockMillis(local: string): number | undefined {
  const parts = LOCAL_DATE_TIME.exec(local) ?? LOCAL_DATE.exec(local);
  if (!parts) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts
    .slice(1)
    .map((part) => Number(part ?? 0));
  const millis = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(millis);
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return valid ? millis : undefined;
}
