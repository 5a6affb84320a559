import { Injectable } from '@nestjs/common';
import { Clock } from '@solar/core';
import { SunSourcesService, SunSourceView } from '@solar/domain';
import {
  AccuracyScore,
  DayScore,
  ForecastModelKind,
  MeasuredHour,
  scoreDayAheadForecasts,
  servedModelKind,
} from '@solar/forecast';
import { DayAheadForecastRepository } from '../storage/day-ahead-forecast.repository';
import { ForecastModelRepository } from '../storage/forecast-model.repository';
import { PredictionHistoryRepository } from '../storage/prediction-history.repository';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One scored day, with the forecast it scored. */
export interface ScoredDay extends DayScore {
  /** When its day-ahead forecast was issued. */
  issuedAt: string;
  /** Which model made that forecast. */
  model: ForecastModelKind;
  /** When that model was trained (null for the physics forecast): a training changes it. */
  modelTrainedAt: string | null;
}

/** The accuracy of a source's day-ahead forecasts over its last days (docs/forecast-accuracy.md). */
export interface ForecastAccuracy {
  sunSourceId: string;
  /** First and last UTC day of the window (the `days` days before today). */
  from: string;
  to: string;
  daysScored: number;
  /** `capacity`: solar errors also as fractions of the installed capacity; `watts`: none is set. */
  normalizedBy: 'capacity' | 'watts';
  capacityWatts: number | null;
  /** The model the next forecast will use, and when it was trained (null for the physics forecast). */
  model: { live: ForecastModelKind; trainedAt: string | null };
  days: ScoredDay[];
  overall: AccuracyScore;
}

/**
 * Scores a source's kept day-ahead forecasts against its hourly telemetry when asked: nothing to
 * schedule, and a late upload, a changed capacity or a corrected reading count at once.
 */
@Injectable()
export class ForecastAccuracyService {
  constructor(
    private readonly sources: SunSourcesService,
    private readonly dayAhead: DayAheadForecastRepository,
    private readonly history: PredictionHistoryRepository,
    private readonly models: ForecastModelRepository,
    private readonly clock: Clock,
  ) {}

  async accuracy(ownerId: string, sunSourceId: string, days: number): Promise<ForecastAccuracy> {
    // Another user's source, or none: NotFoundError.
    return this.accuracyOf(await this.sources.get(ownerId, sunSourceId), days);
  }

  /** `accuracy` without the ownership check, for a source its owner shares. */
  async accuracyOf(
    source: Pick<SunSourceView, 'id' | 'installedCapacityWatts'>,
    days: number,
  ): Promise<ForecastAccuracy> {
    const today = Math.floor(this.clock.now().getTime() / DAY_MS) * DAY_MS;
    const first = today - days * DAY_MS;
    const from = isoDate(first);
    const to = isoDate(today - DAY_MS);
    const [forecasts, measured, stored] = await Promise.all([
      this.dayAhead.between(source.id, from, to),
      // From the day before the window: smart persistence reads it.
      this.history.measuredHours(source.id, new Date(first - DAY_MS), new Date(today)),
      this.models.stored(source.id),
    ]);
    // What the forecast serves with the stored model: a model it cannot read is served as physics.
    const live = servedModelKind(stored?.model ?? null);
    const byHour = new Map<number, MeasuredHour>(measured.map((hour) => [hour.hour.getTime(), hour]));
    const capacity = source.installedCapacityWatts;
    const normalizedBy = capacity !== null && capacity > 0 ? 'capacity' : 'watts';
    const scores = scoreDayAheadForecasts(forecasts, (at) => byHour.get(at), capacity);
    const kept = new Map(forecasts.map((forecast) => [forecast.date, forecast]));
    return {
      sunSourceId: source.id,
      from,
      to,
      daysScored: scores.days.length,
      normalizedBy,
      capacityWatts: normalizedBy === 'capacity' ? capacity : null,
      model: {
        live,
        trainedAt: live === 'physics' ? null : (stored?.trainedAt.toISOString() ?? null),
      },
      days: scores.days.map((day) => {
        const forecast = kept.get(day.date)!;
        return {
          date: day.date,
          issuedAt: forecast.issuedAt.toISOString(),
          model: forecast.model,
          modelTrainedAt: forecast.modelTrainedAt?.toISOString() ?? null,
          ...rounded(day),
        };
      }),
      overall: rounded(scores.overall),
    };
  }
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals + 0;
const roundOrNull = (value: number | null, decimals: number) =>
  value === null ? null : round(value, decimals);

/** Watts to 0.1 W, fractions and skills to 0.0001, state of charge to 0.01 point. */
function rounded(score: AccuracyScore): AccuracyScore {
  const { solar, load, battery, skill } = score;
  return {
    solar: solar && {
      hours: solar.hours,
      rmseW: round(solar.rmseW, 1),
      maeW: round(solar.maeW, 1),
      nrmse: roundOrNull(solar.nrmse, 4),
      nmae: roundOrNull(solar.nmae, 4),
    },
    load: load && {
      hours: load.hours,
      rmseW: round(load.rmseW, 1),
      maeW: round(load.maeW, 1),
      skillVsProfile: roundOrNull(load.skillVsProfile, 4),
    },
    battery: battery && { hours: battery.hours, socMae: round(battery.socMae, 2) },
    skill: {
      vsSmartPersistence: roundOrNull(skill.vsSmartPersistence, 4),
      vsPhysics: roundOrNull(skill.vsPhysics, 4),
    },
  };
}
