import { StoredWeatherDay } from './weather.repository';

/** Weather record of SPEC.md §2.7: one day at a source. */
export interface WeatherRecord {
  id: string;
  sunSourceId: string;
  /** `YYYY-MM-DD`: the source's local date. */
  date: string;
  temperatureMax: number | null;
  temperatureMin: number | null;
  shortwaveRadiationSum: number | null;
  weatherCode: number | null;
  uvIndexMax: number | null;
  precipitationSum: number | null;
  /** `YYYY-MM-DDTHH:mm`: local wall time at the source, as the provider gives it. */
  sunrise: string | null;
  sunset: string | null;
}

export function toWeatherRecord(day: StoredWeatherDay): WeatherRecord {
  return {
    id: day.id,
    sunSourceId: day.sunSourceId,
    date: day.date,
    temperatureMax: day.temperatureMax,
    temperatureMin: day.temperatureMin,
    shortwaveRadiationSum: day.shortwaveRadiationSum,
    weatherCode: day.weatherCode,
    uvIndexMax: day.uvIndexMax,
    precipitationSum: day.precipitationSum,
    sunrise: day.sunrise,
    sunset: day.sunset,
  };
}
