import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { barChartSvg, LineSeries, weekChartSvg } from './plots';
import type { ReplayResult, ScoredHour, Setting } from './replay';
import { loadRows, scorableLoadHours, scorableSolarHours, solarRows, typicalWeek } from './scores';
import { shiftDate } from './time-zones';

/**
 * The plots of a run: for solar (and load, when there is load) a week of forecasts against the
 * measurement, and the error by month. Written as SVG into the results directory.
 */

export interface Figure {
  file: string;
  what: string;
}

const COLOURS = { measured: '#111111', weather: '#1f77b4', history: '#ff7f0e', reference: '#8c8c8c' };
const SETTING_NAME: Record<Setting, string> = {
  weather: 'model (a), measured weather',
  history: 'model (b), no weather',
};

function weekHours(hours: readonly ScoredHour[], from: string): ScoredHour[] {
  const to = shiftDate(from, 6);
  return hours.filter((hour) => hour.date >= from && hour.date <= to);
}

export interface FigureContext {
  result: ReplayResult;
  directory: string;
  siteLabel: string;
  timeZone: string;
  capacityWatts: number | null;
  /** First local day of the week to plot, or null for the typical week. */
  plotWeek: string | null;
  hasSolar: boolean;
  hasLoad: boolean;
}

/** What one forecast quantity (solar or load) plots: a week against the measurement, errors by month. */
interface Quantity {
  /** File name prefix and the first word of the figures' descriptions. */
  name: 'solar' | 'load';
  weekTitle: string;
  forecastOf: (hour: ScoredHour, setting: Setting) => number;
  measuredOf: (hour: ScoredHour) => number;
  /** Hours that count when choosing the typical week, beside being scorable. */
  eligible: (hour: ScoredHour) => boolean;
  scorable: ScoredHour[];
  reference: { name: string; of: (hour: ScoredHour) => number };
  /** Rows by month for a setting: the model's error and the reference's, in the plotted metric. */
  monthly: (setting: Setting) => Array<{ label: string; model: number; reference: number }>;
  bars: {
    file: string;
    title: string;
    subtitle: string;
    yLabel: string;
    format: (value: number) => string;
    /** The report's line for the file. */
    what: string;
  };
}

export function writeFigures(context: FigureContext): Figure[] {
  const { result, directory, siteLabel } = context;
  const figures: Figure[] = [];
  mkdirSync(directory, { recursive: true });
  const write = (file: string, svg: string, what: string) => {
    writeFileSync(join(directory, file), svg);
    figures.push({ file: join(directory, file), what });
  };
  const main: Setting = result.settings.includes('weather') ? 'weather' : 'history';

  if (context.hasSolar && context.capacityWatts) {
    const capacity = context.capacityWatts;
    plotQuantity(context, main, write, {
      name: 'solar',
      weekTitle: 'Solar power',
      forecastOf: (hour, setting) => hour.modelSolar[setting],
      measuredOf: (hour) => hour.solar,
      eligible: (hour) => hour.daylight,
      scorable: scorableSolarHours(result.hours, main),
      reference: { name: 'smart persistence', of: (hour) => hour.smartPersistence },
      monthly: (setting) =>
        solarRows(result.hours, setting, capacity).map((row) => ({
          label: row.label,
          model: row.model.nrmse,
          reference: row.smartPersistence.nrmse,
        })),
      bars: {
        file: 'solar-nrmse-by-month.svg',
        title: 'Solar nRMSE by month, daytime hours',
        subtitle: `${siteLabel}; nRMSE = RMSE / ${capacity / 1000} kW installed; lower is better`,
        yLabel: 'nRMSE',
        format: (value) => `${(100 * value).toFixed(1)} %`,
        what: 'solar, nRMSE by month against smart persistence',
      },
    });
  }
  if (context.hasLoad) {
    plotQuantity(context, main, write, {
      name: 'load',
      weekTitle: 'Household load',
      forecastOf: (hour, setting) => hour.modelLoad[setting],
      measuredOf: (hour) => hour.load,
      eligible: () => true,
      scorable: scorableLoadHours(result.hours, main),
      reference: { name: 'same as yesterday', of: (hour) => hour.sameAsYesterday },
      monthly: (setting) =>
        loadRows(result.hours, setting).map((row) => ({
          label: row.label,
          model: row.model.rmse,
          reference: row.sameAsYesterday.rmse,
        })),
      bars: {
        file: 'load-rmse-by-month.svg',
        title: 'Household load RMSE by month, all hours',
        subtitle: `${siteLabel}; lower is better`,
        yLabel: 'RMSE, W',
        format: (value) => value.toFixed(0),
        what: 'load, RMSE by month against same-as-yesterday',
      },
    });
  }
  return figures;
}

function plotQuantity(
  context: FigureContext,
  main: Setting,
  write: (file: string, svg: string, what: string) => void,
  quantity: Quantity,
): void {
  const { result, siteLabel, timeZone } = context;
  const week =
    context.plotWeek ??
    typicalWeek(
      result.hours,
      quantity.scorable,
      quantity.eligible,
      (hour) => quantity.forecastOf(hour, main),
      quantity.measuredOf,
    );
  if (week) {
    const hours = weekHours(result.hours, week);
    const why = context.plotWeek ? 'the week asked for' : 'the scored week whose RMSE is the median of all';
    const series: LineSeries[] = [
      { name: 'measured', values: hours.map(quantity.measuredOf), color: COLOURS.measured },
      ...result.settings.map((setting) => ({
        name: SETTING_NAME[setting],
        values: hours.map((hour) => quantity.forecastOf(hour, setting)),
        color: COLOURS[setting],
      })),
      {
        name: quantity.reference.name,
        values: hours.map(quantity.reference.of),
        color: COLOURS.reference,
        dashed: true,
      },
    ];
    if (hours.length > 0)
      write(
        `${quantity.name}-week.svg`,
        weekChartSvg({
          title: `${quantity.weekTitle}, day-ahead forecast against measured, ${week} to ${shiftDate(week, 6)}`,
          subtitle: `${siteLabel}; ${why}; each day forecast from its local midnight`,
          start: hours[0].hour,
          timeZone,
          yLabel: 'W (hourly mean)',
          series,
        }),
        `${quantity.name}, a week of forecasts against measured (${week}, ${why})`,
      );
  }
  const rows = Object.fromEntries(result.settings.map((setting) => [setting, quantity.monthly(setting)]));
  const months = rows.history.filter((row) => row.label !== 'overall');
  if (months.length === 0) return;
  const { bars } = quantity;
  write(
    bars.file,
    barChartSvg({
      title: bars.title,
      subtitle: bars.subtitle,
      yLabel: bars.yLabel,
      format: bars.format,
      series: [
        ...result.settings.map((setting) => ({ name: SETTING_NAME[setting], color: COLOURS[setting] })),
        { name: quantity.reference.name, color: COLOURS.reference },
      ],
      groups: months.map((month) => ({
        label: month.label,
        values: [
          ...result.settings.map(
            (setting) => rows[setting].find((other) => other.label === month.label)?.model ?? null,
          ),
          month.reference,
        ],
      })),
    }),
    bars.what,
  );
}
