import { ServiceUnavailableError } from '../common/domain-error';

export const WEATHER_PROVIDER_UNAVAILABLE = 'Weather provider unavailable';
/** The same words as the forecasting endpoints (DECISIONS.md "Forecasts"). */
export const SOURCE_NEEDS_COORDINATES = 'Source needs latitude and longitude';

/**
 * The weather provider could not be reached, did not answer in time, or answered something other
 * than a forecast (SPEC.md §7: 503). The cause says which, for the log; the client sees only
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
