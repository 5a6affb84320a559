import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { barChartSvg, LineSeries, weekChartSvg } from './plots';
import type { ReplayResult, ScoredHour, Setting } from './replay';
import { loadRows, scorableLoadHours, scorableSolarHours, solarRows, typicalWeek } from './scores';

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

const shiftDate = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

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

export function writeFigures(context: FigureContext): Figure[] {
  const { result, directory, siteLabel, timeZone } = context;
  const figures: Figure[] = [];
  mkdirSync(directory, { recursive: true });
  const write = (file: string, svg: string, what: string) => {
    writeFileSync(join(directory, file), svg);
    figures.push({ file: join(directory, file), what });
  };
  const main: Setting = result.settings.includes('weather') ? 'weather' : 'history';
  const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

  if (context.hasSolar && context.capacityWatts) {
    const capacity = context.capacityWatts;
    const scorable = scorableSolarHours(result.hours, main);
    const week =
      context.plotWeek ??
      typicalWeek(
        result.hours,
        scorable,
        (hour) => hour.daylight,
        (hour) => hour.modelSolar[main],
        (hour) => hour.solar,
      );
    if (week) {
      const hours = weekHours(result.hours, week);
      const series: LineSeries[] = [
        { name: 'measured', values: hours.map((hour) => hour.solar), color: COLOURS.measured },
        ...result.settings.map((setting) => ({
          name: SETTING_NAME[setting],
          values: hours.map((hour) => hour.modelSolar[setting]),
          color: COLOURS[setting],
        })),
        {
          name: 'smart persistence',
          values: hours.map((hour) => hour.smartPersistence),
          color: COLOURS.reference,
          dashed: true,
        },
      ];
      const why = context.plotWeek ? 'the week asked for' : 'the scored week whose RMSE is the median of all';
      if (hours.length > 0)
        write(
          'solar-week.svg',
          weekChartSvg({
            title: `Solar power, day-ahead forecast against measured, ${week} to ${shiftDate(week, 6)}`,
            subtitle: `${siteLabel}; ${why}; each day forecast from its local midnight`,
            start: hours[0].hour,
            timeZone,
            yLabel: 'W (hourly mean)',
            series,
          }),
          `solar, a week of forecasts against measured (${week}, ${why})`,
        );
    }
    const rows = Object.fromEntries(
      result.settings.map((setting) => [setting, solarRows(result.hours, setting, capacity)]),
    );
    const reference = rows.history.filter((row) => row.label !== 'overall');
    if (reference.length > 0)
      write(
        'solar-nrmse-by-month.svg',
        barChartSvg({
          title: 'Solar nRMSE by month, daytime hours',
          subtitle: `${siteLabel}; nRMSE = RMSE / ${capacity / 1000} kW installed; lower is better`,
          yLabel: 'nRMSE',
          format: percent,
          series: [
            ...result.settings.map((setting) => ({ name: SETTING_NAME[setting], color: COLOURS[setting] })),
            { name: 'smart persistence', color: COLOURS.reference },
          ],
          groups: reference.map((row) => ({
            label: row.label,
            values: [
              ...result.settings.map(
                (setting) => rows[setting].find((other) => other.label === row.label)?.model.nrmse ?? null,
              ),
              row.smartPersistence.nrmse,
            ],
          })),
        }),
        'solar, nRMSE by month against smart persistence',
      );
  }

  if (context.hasLoad) {
    const scorable = scorableLoadHours(result.hours, main);
    const week =
      context.plotWeek ??
      typicalWeek(
        result.hours,
        scorable,
        () => true,
        (hour) => hour.modelLoad[main],
        (hour) => hour.load,
      );
    if (week) {
      const hours = weekHours(result.hours, week);
      const why = context.plotWeek ? 'the week asked for' : 'the scored week whose RMSE is the median of all';
      if (hours.length > 0)
        write(
          'load-week.svg',
          weekChartSvg({
            title: `Household load, day-ahead forecast against measured, ${week} to ${shiftDate(week, 6)}`,
            subtitle: `${siteLabel}; ${why}; each day forecast from its local midnight`,
            start: hours[0].hour,
            timeZone,
            yLabel: 'W (hourly mean)',
            series: [
              { name: 'measured', values: hours.map((hour) => hour.load), color: COLOURS.measured },
              ...result.settings.map((setting) => ({
                name: SETTING_NAME[setting],
                values: hours.map((hour) => hour.modelLoad[setting]),
                color: COLOURS[setting],
              })),
              {
                name: 'same as yesterday',
                values: hours.map((hour) => hour.sameAsYesterday),
                color: COLOURS.reference,
                dashed: true,
              },
            ],
          }),
          `load, a week of forecasts against measured (${week}, ${why})`,
        );
    }
    const rows = Object.fromEntries(
      result.settings.map((setting) => [setting, loadRows(result.hours, setting)]),
    );
    const reference = rows.history.filter((row) => row.label !== 'overall');
    if (reference.length > 0)
      write(
        'load-rmse-by-month.svg',
        barChartSvg({
          title: 'Household load RMSE by month, all hours',
          subtitle: `${siteLabel}; lower is better`,
          yLabel: 'RMSE, W',
          format: (value) => value.toFixed(0),
          series: [
            ...result.settings.map((setting) => ({ name: SETTING_NAME[setting], color: COLOURS[setting] })),
            { name: 'same as yesterday', color: COLOURS.reference },
          ],
          groups: reference.map((row) => ({
            label: row.label,
            values: [
              ...result.settings.map(
                (setting) => rows[setting].find((other) => other.label === row.label)?.model.rmse ?? null,
              ),
              row.sameAsYesterday.rmse,
            ],
          })),
        }),
        'load, RMSE by month against same-as-yesterday',
      );
  }
  return figures;
}
