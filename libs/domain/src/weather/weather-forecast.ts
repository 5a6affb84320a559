/** One day of a source's forecast, in the source's local calendar. */
export interface WeatherDay {
  /** `YYYY-MM-DD`, the local date. */
  date: string;
  /** °C */
  temperatureMax: number | null;
  /** °C */
  temperatureMin: number | null;
  /** MJ/m² over the day. */
  shortwaveRadiationSum: number | null;
  /** WMO weather interpretation code (0-99). */
  weatherCode: number | null;
  uvIndexMax: number | null;
  /** mm */
  precipitationSum: number | null;
  /** `YYYY-MM-DDTHH:mm`, local wall time. */
  sunrise: string | null;
  sunset: string | null;
}

/** One hour of the series the forecasting model uses; `ts` is the start of the hour, in UTC. */
export interface WeatherHour {
  ts: Date;
  /** °C */
  temperature: number | null;
  /** W/m², mean over the preceding hour. */
  shortwaveRadiation: number | null;
  /** % */
  cloudCover: number | null;
  weatherCode: number | null;
  uvIndex: number | null;
  /** mm over the preceding hour. */
  precipitation: number | null;
}

/** What one provider answer holds for one place. */
export interface WeatherForecast {
  /** IANA name the provider resolved the coordinates to (`timezone=auto`). */
  timezone: string;
  /** The one offset the provider applied to every local time of this answer. */
  utcOffsetSeconds: number;
  days: WeatherDay[];
  hours: WeatherHour[];
}
