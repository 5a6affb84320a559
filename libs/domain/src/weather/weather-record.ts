import { StoredWeatherDay } from './weather.repository';

/** Weather record: one day at a source, as stored. */
export type WeatherRecord = StoredWeatherDay;
