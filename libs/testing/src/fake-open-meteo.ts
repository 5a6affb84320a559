import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { seededRandom } from './seeded-random';

/**
 * How the fake answers: a forecast, an HTTP 500, a truncated JSON body, valid JSON that lacks
 * part of the forecast, or nothing at all (the connection stays open). `stop()` gives the last
 * failure mode, a refused connection.
 */
export type FakeOpenMeteoMode = 'ok' | 'http-500' | 'malformed-json' | 'incomplete' | 'hang';

export interface FakeForecastOptions {
  /** Local date of the first day (`YYYY-MM-DD`); Open-Meteo starts at local midnight of today. */
  firstDate: string;
  utcOffsetSeconds: number;
  timezone: string;
  timezoneAbbreviation: string;
  /** Another variant gives other values for the same days (a later forecast). */
  variant: number;
  /** Answer with `weathercode`, the name before Open-Meteo's 2023 renaming. */
  legacyWeatherCodeName: boolean;
}

/** A request the fake received. */
export interface FakeOpenMeteoRequest {
  path: string;
  params: URLSearchParams;
}

type Series = Record<string, (string | number | null)[]>;

/** Open-Meteo's answer to a forecast request, as recorded from the real API. */
export interface OpenMeteoBody {
  latitude: number;
  longitude: number;
  generationtime_ms: number;
  utc_offset_seconds: number;
  timezone: string;
  timezone_abbreviation: string;
  elevation: number;
  hourly_units: Record<string, string>;
  hourly: Series;
  daily_units: Record<string, string>;
  daily: Series;
}

const HOURLY_UNITS: Record<string, string> = {
  temperature_2m: '°C',
  shortwave_radiation: 'W/m²',
  cloud_cover: '%',
  weather_code: 'wmo code',
  uv_index: '',
  precipitation: 'mm',
};
const DAILY_UNITS: Record<string, string> = {
  temperature_2m_max: '°C',
  temperature_2m_min: '°C',
  shortwave_radiation_sum: 'MJ/m²',
  weather_code: 'wmo code',
  uv_index_max: '',
  precipitation_sum: 'mm',
  sunrise: 'iso8601',
  sunset: 'iso8601',
};

const DAY_MS = 86_400_000;
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const pad = (value: number) => String(value).padStart(2, '0');
const localDate = (millis: number) => new Date(millis).toISOString().slice(0, 10);
const wallTime = (date: string, minutes: number) =>
  `${date}T${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/**
 * A full forecast (every variable the service asks for) with realistic, deterministic values: a
 * day's temperature curve, clouds, radiation between sunrise and sunset, showers under heavy
 * cloud; the daily values are those of the day's hours, as Open-Meteo's are.
 */
export function fakeOpenMeteoBody(
  coordinates: { latitude: number; longitude: number },
  days: number,
  options: Pick<FakeForecastOptions, 'firstDate' | 'utcOffsetSeconds' | 'timezone' | 'variant'> &
    Partial<FakeForecastOptions>,
): OpenMeteoBody {
  const random = seededRandom(Math.round(coordinates.latitude * 1000) * 31 + options.variant * 7919);
  const first = Date.parse(`${options.firstDate}T00:00:00Z`);
  const hourly: Series = {
    time: [],
    ...Object.fromEntries(Object.keys(HOURLY_UNITS).map((name) => [name, []])),
  };
  const daily: Series = {
    time: [],
    ...Object.fromEntries(Object.keys(DAILY_UNITS).map((name) => [name, []])),
  };
  for (let day = 0; day < days; day++) {
    const date = localDate(first + day * DAY_MS);
    const sunrise = 5 * 60 + 8 + Math.floor(random() * 9);
    const sunset = 21 * 60 + 24 + Math.floor(random() * 9);
    const dayCloud = random() * 90;
    const warmth = 12 + random() * 8 + options.variant * 1.5;
    const temperatures: number[] = [];
    const radiation: number[] = [];
    const codes: number[] = [];
    const uv: number[] = [];
    const rain: number[] = [];
    for (let hour = 0; hour < 24; hour++) {
      const cloud = Math.round(Math.min(100, Math.max(0, dayCloud + (random() - 0.5) * 40)));
      const sunUp = (hour * 60 - sunrise) / (sunset - sunrise);
      const clearSky = sunUp > 0 && sunUp < 1 ? 860 * Math.sin(Math.PI * sunUp) : 0;
      const shortwave = Math.round(clearSky * (1 - 0.75 * (cloud / 100) ** 3));
      const temperature = round(warmth + 7 * Math.sin((Math.PI * (hour - 9)) / 12) + random() * 0.8, 1);
      const precipitation = cloud > 85 && random() < 0.4 ? round(0.1 + random() * 2.4, 1) : 0;
      const code =
        precipitation > 0
          ? precipitation > 1.5
            ? 63
            : 61
          : [0, 1, 2, 3][Math.min(3, Math.floor(cloud / 25))];
      const uvIndex = round(shortwave / 105, 2);
      hourly.time.push(`${date}T${pad(hour)}:00`);
      hourly.temperature_2m.push(temperature);
      hourly.shortwave_radiation.push(shortwave);
      hourly.cloud_cover.push(cloud);
      hourly.weather_code.push(code);
      hourly.uv_index.push(uvIndex);
      hourly.precipitation.push(precipitation);
      temperatures.push(temperature);
      radiation.push(shortwave);
      codes.push(code);
      uv.push(uvIndex);
      rain.push(precipitation);
    }
    daily.time.push(date);
    daily.temperature_2m_max.push(Math.max(...temperatures));
    daily.temperature_2m_min.push(Math.min(...temperatures));
    daily.shortwave_radiation_sum.push(
      round((radiation.reduce((sum, value) => sum + value, 0) * 3600) / 1e6, 2),
    );
    daily.weather_code.push(Math.max(...codes));
    daily.uv_index_max.push(Math.max(...uv));
    daily.precipitation_sum.push(
      round(
        rain.reduce((sum, value) => sum + value, 0),
        1,
      ),
    );
    daily.sunrise.push(wallTime(date, sunrise));
    daily.sunset.push(wallTime(date, sunset));
  }
  const hours = options.utcOffsetSeconds / 3600;
  return {
    latitude: round(coordinates.latitude, 4),
    longitude: round(coordinates.longitude, 4),
    generationtime_ms: 0.0629425048828125,
    utc_offset_seconds: options.utcOffsetSeconds,
    timezone: options.timezone,
    timezone_abbreviation:
      options.timezoneAbbreviation ?? (hours === 0 ? 'GMT' : `GMT${hours > 0 ? '+' : ''}${hours}`),
    elevation: 38,
    hourly_units: { time: 'iso8601', ...HOURLY_UNITS },
    hourly,
    daily_units: { time: 'iso8601', ...DAILY_UNITS },
    daily,
  };
}

/**
 * Open-Meteo's forecast endpoint on loopback: answers `GET /v1/forecast` in the real format with
 * the variables asked for (an unknown one is a 400 `{ error, reason }`, as the real API does),
 * records every request, and fails on demand — for everyone or for one latitude.
 */
export class FakeOpenMeteo {
  readonly requests: FakeOpenMeteoRequest[] = [];
  forecast: FakeForecastOptions;
  /** `WEATHER_API_URL` for the app under test. */
  url = '';
  private mode: FakeOpenMeteoMode = 'ok';
  private readonly modeByLatitude = new Map<number, FakeOpenMeteoMode>();
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => this.handle(request, response));
  private port = 0;

  constructor(forecast: Partial<FakeForecastOptions> = {}) {
    const utcOffsetSeconds = forecast.utcOffsetSeconds ?? 7200;
    this.forecast = {
      firstDate: localDate(Date.now() + utcOffsetSeconds * 1000),
      utcOffsetSeconds,
      timezone: 'Europe/Berlin',
      timezoneAbbreviation: 'GMT+2',
      variant: 0,
      legacyWeatherCodeName: false,
      ...forecast,
    };
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on loopback: a free port the first time, the same port when started again. */
  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}/v1/forecast`;
    return this;
  }

  /** Closes the port, hanging requests included: from now on, connections are refused. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sets the answer for every request, or only for requests with this latitude. */
  answerWith(mode: FakeOpenMeteoMode, only?: { latitude: number }): void {
    if (only) this.modeByLatitude.set(only.latitude, mode);
    else this.mode = mode;
  }

  /** Back to answering every request with a forecast; the recorded requests are kept. */
  reset(forecast: Partial<FakeForecastOptions> = {}): void {
    this.mode = 'ok';
    this.modeByLatitude.clear();
    this.forecast = { ...this.forecast, ...forecast };
  }

  /** The requests made for a latitude. */
  requestsFor(latitude: number): FakeOpenMeteoRequest[] {
    return this.requests.filter((request) => Number(request.params.get('latitude')) === latitude);
  }

  /** Exactly what the fake answers to a request for these coordinates and days, all variables. */
  bodyFor(coordinates: { latitude: number; longitude: number }, days = 8): OpenMeteoBody {
    return fakeOpenMeteoBody(coordinates, days, this.forecast);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    this.requests.push({ path: url.pathname, params: url.searchParams });
    if (request.method !== 'GET' || url.pathname !== '/v1/forecast') {
      return send(response, 404, { error: true, reason: 'Not Found' });
    }
    const latitude = Number(url.searchParams.get('latitude'));
    const longitude = Number(url.searchParams.get('longitude'));
    switch (this.modeByLatitude.get(latitude) ?? this.mode) {
      case 'hang':
        return;
      case 'http-500':
        return send(response, 500, { error: true, reason: 'Internal Server Error' });
      case 'malformed-json':
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(`{"latitude":${latitude},"longitude":${longitude},"daily":{"time":["2026-06-10",`);
        return;
      case 'incomplete': {
        const body = this.bodyFor({ latitude, longitude });
        delete body.daily.sunset;
        body.hourly.temperature_2m = body.hourly.temperature_2m.slice(0, 100);
        return send(response, 200, body);
      }
      case 'ok':
        return this.answerForecast(url.searchParams, response);
    }
  }

  private answerForecast(params: URLSearchParams, response: ServerResponse): void {
    const latitude = Number(params.get('latitude'));
    const longitude = Number(params.get('longitude'));
    if (!params.has('latitude') || !(Math.abs(latitude) <= 90) || !(Math.abs(longitude) <= 180)) {
      return send(response, 400, { error: true, reason: 'Latitude must be in range of -90 to 90°.' });
    }
    const days = Number(params.get('forecast_days') ?? 7);
    if (!Number.isInteger(days) || days < 1 || days > 16) {
      return send(response, 400, { error: true, reason: 'Forecast days is invalid. Allowed range 0 to 16.' });
    }
    const body = this.bodyFor({ latitude, longitude }, days);
    if (params.get('timezone') !== 'auto') {
      Object.assign(body, { utc_offset_seconds: 0, timezone: 'GMT', timezone_abbreviation: 'GMT' });
    }
    const hourly = pick(body.hourly, body.hourly_units, params.get('hourly'), this.forecast);
    const daily = pick(body.daily, body.daily_units, params.get('daily'), this.forecast);
    if (typeof hourly === 'string' || typeof daily === 'string') {
      const reason = typeof hourly === 'string' ? hourly : daily;
      return send(response, 400, { error: true, reason: reason as string });
    }
    send(response, 200, {
      ...body,
      hourly_units: hourly.units,
      hourly: hourly.series,
      daily_units: daily.units,
      daily: daily.series,
    });
  }
}

/** The asked-for variables only, as the real API answers; a reason string for an unknown one. */
function pick(
  series: Series,
  units: Record<string, string>,
  asked: string | null,
  options: FakeForecastOptions,
): { series: Series; units: Record<string, string> } | string {
  const picked: Series = { time: series.time };
  const pickedUnits: Record<string, string> = { time: units.time };
  for (const name of (asked ?? '').split(',').filter(Boolean)) {
    const source = name === 'weathercode' ? 'weather_code' : name;
    if (!(source in series)) return `Cannot initialize Variable from invalid String value ${name}`;
    const key = source === 'weather_code' && options.legacyWeatherCodeName ? 'weathercode' : source;
    picked[key] = series[source];
    pickedUnits[key] = units[source];
  }
  return { series: picked, units: pickedUnits };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
