import type { WeatherHour } from '@solar/domain';
import type { HourlyWeather } from '@solar/forecast';

const HOUR_MS = 3_600_000;

/**
 * Open-Meteo's hourly rows as the model reads them: the model's hour H is [H, H + 1 h), while a
 * provider row stamped T gives radiation and precipitation over the hour before T and the other
 * variables at the instant T. So hour H takes its radiation and precipitation from the row
 * stamped H + 1 h (null when that row is missing), and the rest from the row stamped H.
 */
export function toModelWeather(rows: readonly WeatherHour[]): HourlyWeather[] {
  const byTime = new Map(rows.map((row) => [row.ts.getTime(), row]));
  return [...rows]
    .sort((a, b) => a.ts.getTime() - b.ts.getTime())
    .map((row) => {
      const endOfHour = byTime.get(row.ts.getTime() + HOUR_MS);
      return {
        hour: row.ts,
        temperature: row.temperature,
        shortwaveRadiation: endOfHour?.shortwaveRadiation ?? null,
        cloudCover: row.cloudCover,
        weatherCode: row.weatherCode,
        uvIndex: row.uvIndex,
        precipitation: endOfHour?.precipitation ?? null,
      };
    });
}
