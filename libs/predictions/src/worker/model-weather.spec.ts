import type { WeatherHour } from '@solar/domain';
import { toModelWeather } from './model-weather';

const at = (iso: string) => new Date(iso);
const row = (iso: string, radiation: number, precipitation: number, temperature: number): WeatherHour => ({
  ts: at(iso),
  temperature,
  shortwaveRadiation: radiation,
  cloudCover: temperature * 2,
  weatherCode: 3,
  uvIndex: 1,
  precipitation,
});

describe('toModelWeather', () => {
  it("gives hour H the radiation and precipitation of the row stamped H + 1 h, and H's own instant values", () => {
    const rows = [
      row('2026-06-01T11:00:00Z', 500, 0.1, 20),
      row('2026-06-01T10:00:00Z', 400, 0.4, 18),
      row('2026-06-01T12:00:00Z', 600, 0.2, 22),
    ];
    expect(toModelWeather(rows)).toEqual([
      {
        hour: at('2026-06-01T10:00:00Z'),
        temperature: 18,
        shortwaveRadiation: 500,
        cloudCover: 36,
        weatherCode: 3,
        uvIndex: 1,
        precipitation: 0.1,
      },
      {
        hour: at('2026-06-01T11:00:00Z'),
        temperature: 20,
        shortwaveRadiation: 600,
        cloudCover: 40,
        weatherCode: 3,
        uvIndex: 1,
        precipitation: 0.2,
      },
      {
        hour: at('2026-06-01T12:00:00Z'),
        temperature: 22,
        shortwaveRadiation: null,
        cloudCover: 44,
        weatherCode: 3,
        uvIndex: 1,
        precipitation: null,
      },
    ]);
  });

  it('leaves radiation unknown across a gap rather than borrowing a later hour', () => {
    const [first] = toModelWeather([
      row('2026-06-01T10:00:00Z', 400, 0, 18),
      row('2026-06-01T12:00:00Z', 600, 0, 22),
    ]);
    expect(first.shortwaveRadiation).toBeNull();
    expect(first.precipitation).toBeNull();
  });
});
