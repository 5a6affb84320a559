import { AppConfig } from '@solar/config';
import { WeatherFetchOutcome, weatherFetchDuration, weatherFetches } from '@solar/monitoring';
import {
  Coordinates,
  MalformedForecastError,
  openMeteoQuery,
  parseOpenMeteoForecast,
} from './open-meteo-format';
import { WeatherProviderUnavailableError } from './weather.errors';
import { WeatherForecast } from './weather-forecast';

export const DEFAULT_WEATHER_TIMEOUT_MS = 10_000;

export interface OpenMeteoClientOptions {
  /** Bound on the whole exchange, connection to last byte (default 10 s). */
  timeoutMs?: number;
}

/**
 * Fetches a forecast from `WEATHER_API_URL` in Open-Meteo's request and response format (Node's
 * global fetch). Every way the exchange can go wrong — refused, timed out, HTTP error, a body that
 * is not JSON or not the forecast asked for — ends as one `WeatherProviderUnavailableError`.
 */
export class OpenMeteoClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly config: Pick<AppConfig, 'weatherApiUrl'>,
    options: OpenMeteoClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEATHER_TIMEOUT_MS;
  }

  /** The request URL: `WEATHER_API_URL` (its own query, such as an API key, kept) plus ours. */
  forecastUrl(coordinates: Coordinates): URL {
    const url = new URL(this.config.weatherApiUrl);
    for (const [name, value] of Object.entries(openMeteoQuery(coordinates)))
      url.searchParams.set(name, value);
    // Commas are legal in a query (RFC 3986 sub-delims): keep the variable lists as documented.
    url.search = url.searchParams.toString().replace(/%2C/g, ',');
    return url;
  }

  /** Counted in `solar_weather_fetches_total` by outcome, timed in `solar_weather_fetch_duration_seconds`. */
  async fetchForecast(coordinates: Coordinates): Promise<WeatherForecast> {
    const startedAt = performance.now();
    let outcome: WeatherFetchOutcome = 'ok';
    try {
      return await this.fetchAndParse(coordinates);
    } catch (error) {
      outcome = error instanceof WeatherProviderUnavailableError ? fetchFailureOf(error) : 'unreachable';
      throw error;
    } finally {
      weatherFetches.inc({ outcome });
      weatherFetchDuration.observe((performance.now() - startedAt) / 1000);
    }
  }

  private async fetchAndParse(coordinates: Coordinates): Promise<WeatherForecast> {
    const url = this.forecastUrl(coordinates);
    let status: number;
    let text: string;
    try {
      // One signal for connect, headers and body, so a server that stalls mid-body is bounded too.
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw new WeatherProviderUnavailableError(this.describe(error), { cause: error });
    }
    if (status < 200 || status > 299) {
      throw new WeatherProviderUnavailableError(`HTTP ${status}: ${text.slice(0, 200)}`, {
        cause: new HttpStatusError(status),
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new WeatherProviderUnavailableError('answer is not JSON', { cause: error });
    }
    try {
      return parseOpenMeteoForecast(body);
    } catch (error) {
      if (!(error instanceof MalformedForecastError)) throw error;
      throw new WeatherProviderUnavailableError(error.message, { cause: error });
    }
  }

  /** Duck-typed: fetch's errors may come from another realm than ours (a test VM). */
  private describe(error: unknown): string {
    const { name, cause } = (error ?? {}) as { name?: string; cause?: { code?: string; message?: string } };
    if (name === 'TimeoutError') return `no answer within ${this.timeoutMs} ms`;
    return `unreachable: ${cause?.code ?? cause?.message ?? String(error)}`;
  }
}

/** The status of a provider's answer that was not a 2xx. */
class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** Which way a fetch failed, for the metrics: timed out, unreachable, an HTTP error, or not a forecast. */
function fetchFailureOf(error: WeatherProviderUnavailableError): WeatherFetchOutcome {
  const { cause } = error;
  if (cause instanceof HttpStatusError) return 'http_error';
  if (cause instanceof SyntaxError || cause instanceof MalformedForecastError) return 'malformed';
  return (cause as { name?: string } | undefined)?.name === 'TimeoutError' ? 'timeout' : 'unreachable';
}
