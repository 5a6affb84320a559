import { StoredWeatherDay } from './weather.repository';

/** Weather record of SPEC.md §2.7: one day at a source, as stored. */
export type WeatherRecord = StoredWeatherDay;
