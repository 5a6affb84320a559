/** How figures read on the share page and its badge: English, UTC, units written out. */

const HOUR = 3_600_000;

export function formatPower(watts: number): string {
  if (Math.abs(watts) < 1000) return `${Math.round(watts)} W`;
  return `${trimmed(watts / 1000, 2)} kW`;
}

/** Axis labels: one significant decimal at most. */
export function formatPowerAxis(watts: number): string {
  return watts < 1000 ? `${Math.round(watts)} W` : `${trimmed(watts / 1000, 1)} kW`;
}

export function formatKwh(kwh: number): string {
  return `${kwh.toFixed(1)} kWh`;
}

export function formatPercent(value: number): string {
  return `${Math.round(value)} %`;
}

export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** `14:05 UTC` */
export function formatTime(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}

/** `Wed 10 Jun` for a `YYYY-MM-DD` date. */
export function formatDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return date;
  return day.toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

/** `Wed 10` for a `YYYY-MM-DD` date. */
export function formatShortDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return date;
  return day.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** `Wed` for a `YYYY-MM-DD` date: a bar's label. */
export function formatWeekday(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return date;
  return day.toLocaleDateString('en-GB', { weekday: 'short', timeZone: 'UTC' });
}

/** `3 min ago`, `2 h ago`, `4 days ago`. */
export function formatAge(milliseconds: number): string {
  const minutes = Math.max(0, Math.floor(milliseconds / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  if (milliseconds < 48 * HOUR) return `${Math.floor(milliseconds / HOUR)} h ago`;
  return `${Math.floor(milliseconds / (24 * HOUR))} days ago`;
}

/** What a WMO weather code says, in a word or two. */
export function describeWeather(code: number | null): string {
  if (code === null) return '–';
  if (code === 0) return 'Clear';
  if (code === 1) return 'Mainly clear';
  if (code === 2) return 'Partly cloudy';
  if (code === 3) return 'Overcast';
  if (code === 45 || code === 48) return 'Fog';
  if (code >= 51 && code <= 57) return 'Drizzle';
  if (code >= 61 && code <= 67) return 'Rain';
  if (code >= 71 && code <= 77) return 'Snow';
  if (code >= 80 && code <= 82) return 'Showers';
  if (code === 85 || code === 86) return 'Snow showers';
  if (code >= 95 && code <= 99) return 'Thunderstorm';
  return `Code ${code}`;
}

function trimmed(value: number, decimals: number): string {
  return String(Number(value.toFixed(decimals)));
}
