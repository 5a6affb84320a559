import { ServiceUnavailableError } from '@solar/core';

export const WEATHER_PROVIDER_UNAVAILABLE = 'Weather provider unavailable';
/** The same words as the forecasting endpoints. */
export const SOURCE_NEEDS_COORDINATES = 'Source needs latitude and longitude';

/**
 * The weather provider could not be reached, did not answer in time, or answered something other
 * than a forecast (a 503). The cause says which, for the log; the client sees only
 * the message.
 */
export class WeatherProviderUnavailableError extends ServiceUnavailableError {
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(WEATHER_PROVIDER_UNAVAILABLE, options);
  }
}
