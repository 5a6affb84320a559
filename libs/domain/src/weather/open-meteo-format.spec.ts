import { MalformedForecastError, openMeteoQuery, parseOpenMeteoForecast } from './open-meteo-format';

type Answer = Record<string, unknown> & {
  daily: Record<string, unknown[]>;
  hourly: Record<string, unknown[]>;
};

/** A two-day, two-hour answer in Open-Meteo's recorded shape. */
function answer(): Answer {
  return {
    latitude: 52.52,
    longitude: 13.419998,
    generationtime_ms: 0.0629425048828125,
    utc_offset_seconds: 7200,
    timezone: 'Europe/Berlin',
    timezone_abbreviation: 'GMT+2',
    elevation: 38,
    hourly_units: { time: 'iso8601', temperature_2m: '°C' },
    hourly: {
      time: ['2026-06-10T00:00', '2026-06-10T01:00'],
      temperature_2m: [14.2, 13.8],
      shortwave_radiation: [0, null],
      cloud_cover: [35, 40],
      weather_code: [1, 2],
      uv_index: [0, 0],
      precipitation: [0, 0.2],
    },
    daily_units: { time: 'iso8601', temperature_2m_max: '°C' },
    daily: {
      time: ['2026-06-10', '2026-06-11'],
      temperature_2m_max: [24.1, 22.6],
      temperature_2m_min: [12.3, 13],
      shortwave_radiation_sum: [27.45, 18.02],
      weather_code: [3, 61],
      uv_index_max: [6.85, null],
      precipitation_sum: [0, 3.4],
      sunrise: ['2026-06-10T04:44', '2026-06-11T04:43'],
      sunset: ['2026-06-10T21:27', '2026-06-11T21:28'],
    },
  };
}

describe('Open-Meteo forecast format', () => {
  it('asks for the eight days and the variables the service stores, in local time', () => {
    expect(openMeteoQuery({ latitude: 52.52, longitude: -13.4 })).toEqual({
      latitude: '52.52',
      longitude: '-13.4',
      daily:
        'temperature_2m_max,temperature_2m_min,shortwave_radiation_sum,weather_code,uv_index_max,precipitation_sum,sunrise,sunset',
      hourly: 'temperature_2m,shortwave_radiation,cloud_cover,weather_code,uv_index,precipitation',
      timezone: 'auto',
      forecast_days: '8',
      timeformat: 'iso8601',
    });
  });

  it('reads days in local dates and hours as UTC instants (local minus utc_offset_seconds)', () => {
    const forecast = parseOpenMeteoForecast(answer());
    expect(forecast.timezone).toBe('Europe/Berlin');
    expect(forecast.utcOffsetSeconds).toBe(7200);
    expect(forecast.days).toEqual([
      {
        date: '2026-06-10',
        temperatureMax: 24.1,
        temperatureMin: 12.3,
        shortwaveRadiationSum: 27.45,
        weatherCode: 3,
        uvIndexMax: 6.85,
        precipitationSum: 0,
        sunrise: '2026-06-10T04:44',
        sunset: '2026-06-10T21:27',
      },
      {
        date: '2026-06-11',
        temperatureMax: 22.6,
        temperatureMin: 13,
        shortwaveRadiationSum: 18.02,
        weatherCode: 61,
        uvIndexMax: null,
        precipitationSum: 3.4,
        sunrise: '2026-06-11T04:43',
        sunset: '2026-06-11T21:28',
      },
    ]);
    expect(forecast.hours).toEqual([
      {
        ts: new Date('2026-06-09T22:00:00Z'),
        temperature: 14.2,
        shortwaveRadiation: 0,
        cloudCover: 35,
        weatherCode: 1,
        uvIndex: 0,
        precipitation: 0,
      },
      {
        ts: new Date('2026-06-09T23:00:00Z'),
        temperature: 13.8,
        shortwaveRadiation: null,
        cloudCover: 40,
        weatherCode: 2,
        uvIndex: 0,
        precipitation: 0.2,
      },
    ]);
  });

  it('accepts `weathercode`, the name of older API versions', () => {
    const body = answer();
    body.daily.weathercode = body.daily.weather_code;
    delete body.daily.weather_code;
    body.hourly.weathercode = body.hourly.weather_code;
    delete body.hourly.weather_code;
    const forecast = parseOpenMeteoForecast(body);
    expect(forecast.days.map((day) => day.weatherCode)).toEqual([3, 61]);
    expect(forecast.hours.map((hour) => hour.weatherCode)).toEqual([1, 2]);
  });

  it('handles a negative offset (west of Greenwich)', () => {
    const body = { ...answer(), utc_offset_seconds: -36000, timezone: 'Pacific/Honolulu' };
    expect(parseOpenMeteoForecast(body).hours[0].ts).toEqual(new Date('2026-06-10T10:00:00Z'));
  });

  type Change = (body: Answer) => unknown;
  it.each<[string, Change, RegExp]>([
    ['not an object', () => null, /answer is not an object/],
    ['an Open-Meteo error', () => ({ error: true, reason: 'Latitude must be in range' }), /Latitude must/],
    ['no utc_offset_seconds', (b) => ({ ...b, utc_offset_seconds: undefined }), /utc_offset_seconds/],
    ['a fractional offset', (b) => ({ ...b, utc_offset_seconds: 3600.5 }), /utc_offset_seconds/],
    ['an absurd offset', (b) => ({ ...b, utc_offset_seconds: 100_000 }), /utc_offset_seconds/],
    ['no timezone', (b) => ({ ...b, timezone: '' }), /timezone/],
    ['no daily block', (b) => ({ ...b, daily: undefined }), /daily is not an object/],
    ['daily as an array', (b) => ({ ...b, daily: [] }), /daily is not an object/],
    ['no hourly block', (b) => ({ ...b, hourly: 'x' }), /hourly is not an object/],
    ['empty daily times', (b) => ((b.daily.time = []), b), /daily.time is not a non-empty array/],
    ['a missing daily variable', (b) => (delete b.daily.sunset, b), /daily.sunset is missing/],
    ['a missing hourly variable', (b) => (delete b.hourly.cloud_cover, b), /hourly.cloud_cover is missing/],
    ['no weather code at all', (b) => (delete b.daily.weather_code, b), /daily.weather_code is missing/],
    ['a short array', (b) => (b.hourly.uv_index.pop(), b), /hourly.uv_index has 1 values for 2 times/],
    ['a long array', (b) => (b.daily.precipitation_sum.push(1), b), /has 3 values for 2 times/],
    [
      'a series that is no array',
      (b) => Object.assign(b, { daily: { ...b.daily, uv_index_max: 5 } }),
      /uv_index_max is not an array/,
    ],
    ['a number as a string', (b) => ((b.daily.temperature_2m_max[0] = '24.1'), b), /temperature_2m_max\[0\]/],
    ['NaN smuggled as a string', (b) => ((b.hourly.temperature_2m[1] = 'NaN'), b), /temperature_2m\[1\]/],
    ['a fractional weather code', (b) => ((b.daily.weather_code[0] = 2.5), b), /WMO weather code/],
    ['a weather code over 99', (b) => ((b.hourly.weather_code[0] = 100), b), /WMO weather code/],
    ['a date with an offset', (b) => ((b.daily.time[0] = '2026-06-10T00:00Z'), b), /daily.time\[0\]/],
    ['an impossible date', (b) => ((b.daily.time[1] = '2026-06-31'), b), /daily.time\[1\]/],
    ['an hour with a zone', (b) => ((b.hourly.time[0] = '2026-06-10T00:00+02:00'), b), /hourly.time\[0\]/],
    ['an impossible hour', (b) => ((b.hourly.time[1] = '2026-06-10T24:00'), b), /hourly.time\[1\]/],
    ['a repeated hour', (b) => ((b.hourly.time[1] = b.hourly.time[0]), b), /not increasing at 1/],
    ['days out of order', (b) => (b.daily.time.reverse(), b), /daily.time is not increasing/],
    ['a sunrise that is a number', (b) => ((b.daily.sunrise[0] = 1781066640), b), /daily.sunrise\[0\]/],
    ['a sunset without a time', (b) => ((b.daily.sunset[1] = '2026-06-11'), b), /daily.sunset\[1\]/],
  ])('refuses %s', (_case, change, reason) => {
    const body = change(answer());
    expect(() => parseOpenMeteoForecast(body)).toThrow(MalformedForecastError);
    expect(() => parseOpenMeteoForecast(body)).toThrow(reason);
  });
});
