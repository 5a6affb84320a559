import { TrainedModel } from '../forecaster';
import { FeatureSet, readableFeatures } from './features';
import { BoostedModel, isBoostedModel } from './gradient-boosting';
import {
  isPackedBoostedModel,
  packBoostedModel,
  PackedBoostedModel,
  unpackBoostedModel,
} from './packed-trees';
import { PvModel } from './pv-model';

/** Bumped whenever the payload's meaning changes; an older model is then treated as untrained. */
export const MODEL_VERSION = 2;

export interface ValidationSummary {
  /** Training rows of the first fit (the hold-out excluded) and hold-out rows (day-ahead horizons). */
  trainRows: number;
  validationRows: number;
  /** Trees kept by early stopping, then refitted on all rows. */
  rounds: number;
  /** On the hold-out, in W. */
  mae: number;
  rmse: number;
  r2: number;
  /**
   * The baseline on the same hold-out rows, W: the fitted physical model (solar with weather),
   * smart persistence (solar without weather), the load profile (load; `baselineLoad`).
   */
  referenceMae: number;
  referenceRmse: number;
  referenceR2: number;
  /** `learned` when the trees' hold-out RMSE beat the baseline's, and only then are they served. */
  served: 'learned' | 'baseline';
}

/** A trained model's payload as the forecast uses it, its trees as arrays. */
export interface ForecastPayload {
  kind: 'pv-physics+gradient-boosting';
  /** W: the scale power features are normalised by (the site's capacity or an estimate). */
  capacityWatts: number;
  pv: PvModel;
  models: Record<FeatureSet, BoostedModel | null>;
  featureNames: Record<FeatureSet, readonly string[]>;
  battery: {
    /** Wh estimated from history, null when it could not tell. */
    capacityWh: number | null;
    /** Lowest state of charge seen, %; null without any. */
    minStateOfCharge: number | null;
  };
  training: {
    from: string;
    to: string;
    hours: number;
    seconds: number;
    validation: Record<FeatureSet, ValidationSummary | null>;
  };
}

/**
 * What `TrainedModel.payload` holds: plain JSON, the trees packed (`packed-trees.ts`). Models
 * stored before the trees were packed hold them as arrays, and are read alike.
 */
export interface StoredForecastPayload extends Omit<ForecastPayload, 'models'> {
  models: Record<FeatureSet, PackedBoostedModel | BoostedModel | null>;
}

const SETS: FeatureSet[] = ['solarHistory', 'solarWeather', 'loadHistory', 'loadWeather'];

/**
 * Payloads already read, by the stored object: one forecast reads its model's payload several
 * times (the forecast, the day it scores, the array's clear sky), and unpacking takes a few ms.
 */
const readPayloads = new WeakMap<object, ForecastPayload | null>();

/**
 * The payload of a stored model when this code can use it: right version, expected shape, and
 * features this code computes (those it trains on now, or ones an earlier version trained on).
 * Anything else gives null, and the forecast falls back to the physics baseline.
 */
export function readPayload(model: TrainedModel | null): ForecastPayload | null {
  if (!model || model.version !== MODEL_VERSION) return null;
  const stored = model.payload;
  if (typeof stored !== 'object' || stored === null) return null;
  let payload = readPayloads.get(stored);
  if (payload === undefined) {
    payload = unpackPayload(stored);
    readPayloads.set(stored, payload);
  }
  return payload;
}

function unpackPayload(payload: Partial<StoredForecastPayload>): ForecastPayload | null {
  if (payload.kind !== 'pv-physics+gradient-boosting' || typeof payload.capacityWatts !== 'number')
    return null;
  if (!payload.pv || !payload.models || !payload.featureNames || !payload.battery) return null;
  const models = {} as ForecastPayload['models'];
  for (const set of SETS) {
    const learner = readLearner(payload.models[set]);
    if (learner === undefined) return null;
    const names: unknown = payload.featureNames[set];
    if (!Array.isArray(names) || !names.every((name): name is string => typeof name === 'string'))
      return null;
    if (!readableFeatures(set, names)) return null;
    if (learner && learner.featureCount !== names.length) return null;
    models[set] = learner;
  }
  return { ...(payload as StoredForecastPayload), models };
}

/** A stored learner with its trees as arrays: null where the baseline is served, undefined when unreadable. */
function readLearner(stored: unknown): BoostedModel | null | undefined {
  if (stored === null) return null;
  if (isPackedBoostedModel(stored)) return unpackBoostedModel(stored) ?? undefined;
  return isBoostedModel(stored) ? stored : undefined;
}

/**
 * A model stored before the trees were packed, with its trees packed: the same model, read alike,
 * in a quarter of the size. Null when there is nothing to pack (packed already, no trees, or a
 * model this code cannot read).
 */
export function withPackedTrees(model: TrainedModel): TrainedModel | null {
  const stored = model.payload as StoredForecastPayload;
  const payload = readPayload(model);
  if (!payload || !SETS.some((set) => isBoostedModel(stored.models[set]))) return null;
  return { ...model, payload: { ...stored, models: packedLearners(payload.models) } };
}

/** The learners as a payload stores them: their trees packed. */
export function packedLearners(
  models: Record<FeatureSet, BoostedModel | null>,
): StoredForecastPayload['models'] {
  const packed = (set: FeatureSet) => {
    const learner = models[set];
    return learner && packBoostedModel(learner);
  };
  return {
    solarHistory: packed('solarHistory'),
    solarWeather: packed('solarWeather'),
    loadHistory: packed('loadHistory'),
    loadWeather: packed('loadWeather'),
  };
}
