import {
  describeWeather,
  formatAge,
  formatDay,
  formatKwh,
  formatMoney,
  formatPercent,
  formatPower,
  formatPowerAxis,
  formatShortDay,
  formatTime,
  formatWeekday,
} from './share-page-format';

describe('share page formats', () => {
  it.each([
    [0, '0 W'],
    [849.6, '850 W'],
    [999.4, '999 W'],
    [1000, '1 kW'],
    [1250, '1.25 kW'],
    [12345, '12.35 kW'],
  ])('power %d W reads %s', (watts, text) => {
    expect(formatPower(watts)).toBe(text);
  });

  it.each([
    [0, '0 W'],
    [500, '500 W'],
    [1500, '1.5 kW'],
    [2000, '2 kW'],
  ])('axis power %d W reads %s', (watts, text) => {
    expect(formatPowerAxis(watts)).toBe(text);
  });

  it('writes energy, percentages, money and times', () => {
    expect(formatKwh(12.44)).toBe('12.4 kWh');
    expect(formatKwh(0)).toBe('0.0 kWh');
    expect(formatPercent(81.6)).toBe('82 %');
    expect(formatMoney(1234.5, 'EUR')).toBe('€1,234.50');
    expect(formatMoney(3, 'XYZ')).toBe('XYZ\u00a03.00');
    expect(formatMoney(3, 'E1')).toBe('3.00 E1');
    expect(formatTime(new Date('2026-06-10T09:05:59Z'))).toBe('09:05 UTC');
  });

  it('writes dates in UTC, and leaves what is not a date as it is', () => {
    expect(formatDay('2026-06-10')).toBe('Wed 10 Jun');
    expect(formatShortDay('2026-06-10')).toBe('Wed 10');
    expect(formatWeekday('2026-06-10')).toBe('Wed');
    expect(formatWeekday('later')).toBe('later');
    expect(formatDay('soon')).toBe('soon');
  });

  it.each([
    [0, '0 min ago'],
    [59 * 60_000, '59 min ago'],
    [3 * 3_600_000, '3 h ago'],
    [47 * 3_600_000, '47 h ago'],
    [72 * 3_600_000, '3 days ago'],
  ])('age %d ms reads %s', (milliseconds, text) => {
    expect(formatAge(milliseconds)).toBe(text);
  });

  it.each([
    [null, '–'],
    [0, 'Clear'],
    [2, 'Partly cloudy'],
    [48, 'Fog'],
    [63, 'Rain'],
    [81, 'Showers'],
    [96, 'Thunderstorm'],
    [42, 'Code 42'],
  ])('weather code %p reads %s', (code, text) => {
    expect(describeWeather(code)).toBe(text);
  });
});
