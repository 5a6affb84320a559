// Local copies: Jest runs specs in a vm context where every lookup of a global (Math, Number)
// costs some fifty times a local one, which adds up in these loops.
const { floor, imul, max, min, round } = Math;
const isFiniteNumber = Number.isFinite;
const isNaNNumber = Number.isNaN;
/**
 * Gradient-boosted regression trees, squared loss: the learner behind the forecast.
 *
 * The histogram method of LightGBM and XGBoost's `hist`, in a few hundred lines: every feature is
 * cut once into at most `maxBins` quantile bins (bin 0 holds the missing values), trees grow level
 * by level from per-bin gradient sums, a child's histogram is its parent's minus its sibling's, and
 * a split sends missing values to whichever side gains more. Leaves are Newton steps with L2
 * regularisation, G / (H + λ), so sample weights work as in XGBoost. Row and feature subsampling
 * draw from a seeded generator: the same data and parameters give the same model, bit for bit.
 *
 * A trained model is plain JSON (thresholds are raw feature values, so predicting needs no bins),
 * and `predictBoosted` on the parsed copy gives exactly what the original gives.
 */

export interface BoostingParams {
  /** Upper bound on the number of trees. */
  rounds: number;
  learningRate: number;
  maxDepth: number;
  /** Fewest training rows in a leaf. */
  minLeafRows: number;
  /** L2 penalty on leaf values (λ), in units of the (mean-1) sample weight. */
  lambda: number;
  /** Bins per feature, missing included; at most 256. */
  maxBins: number;
  /** Share of rows each tree sees. */
  subsample: number;
  /** Share of features each tree may split on. */
  featureFraction: number;
  /** Stop when the validation loss has not improved for this many rounds (needs validation rows). */
  earlyStoppingRounds: number;
  seed: number;
}

export const DEFAULT_BOOSTING_PARAMS: BoostingParams = {
  rounds: 300,
  learningRate: 0.08,
  maxDepth: 5,
  minLeafRows: 20,
  lambda: 1,
  maxBins: 32,
  subsample: 0.7,
  featureFraction: 0.8,
  earlyStoppingRounds: 30,
  seed: 1,
};

/**
 * One tree as parallel arrays, node 0 the root. An inner node sends a row left when its feature is
 * at most `threshold` (or is missing and `missingLeft` is 1); a leaf has `feature` −1 and adds
 * `value` (the learning rate already applied). Training makes plain arrays; a stored model reads
 * back as typed arrays (`packed-trees.ts`).
 */
export interface RegressionTree {
  feature: ArrayLike<number>;
  threshold: ArrayLike<number>;
  missingLeft: ArrayLike<number>;
  left: ArrayLike<number>;
  right: ArrayLike<number>;
  value: ArrayLike<number>;
}

export interface BoostedModel {
  featureCount: number;
  /** The (weighted) mean of the training targets: the prediction before any tree. */
  base: number;
  trees: RegressionTree[];
}

/** Rows as a row-major matrix: `values[row * featureCount + feature]`, NaN for missing. */
export interface Dataset {
  rowCount: number;
  featureCount: number;
  values: Float64Array;
  targets: Float64Array;
  /** Non-negative sample weights; all 1 when absent. */
  weights?: Float64Array;
}

export interface BoostingResult {
  model: BoostedModel;
  /** Trees kept: the round with the best validation loss, or every round without validation. */
  bestRounds: number;
  /** Weighted mean squared error on the validation rows per round (empty without them). */
  validationLoss: number[];
}

/** mulberry32: a tiny, good-enough generator for subsampling, seeded for reproducibility. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Upper edges of the non-missing bins of one feature: a value goes to the first bin whose edge is
 * at least the value, and past the last edge to one more bin. With few distinct values every one
 * gets its own bin; otherwise the edges are quantiles.
 */
export function binEdges(column: Float64Array, maxBins: number): Float64Array {
  const present = column.filter((value) => !isNaNNumber(value)).sort();
  if (present.length === 0) return new Float64Array(0);
  const distinct: number[] = [];
  for (const value of present)
    if (distinct.length === 0 || distinct[distinct.length - 1] !== value) distinct.push(value);
  const binsForValues = maxBins - 1;
  if (distinct.length <= binsForValues) return Float64Array.from(distinct.slice(0, -1));
  const edges: number[] = [];
  for (let bin = 1; bin < binsForValues; bin++) {
    const edge = present[min(present.length - 1, floor((bin * present.length) / binsForValues))];
    if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
  }
  // The top edge must leave something above it, or the last bin is empty.
  while (edges.length > 0 && edges[edges.length - 1] >= present[present.length - 1]) edges.pop();
  return Float64Array.from(edges);
}

/** Bin of a value: 0 when missing, else 1 + the number of edges below it. */
export function binOf(value: number, edges: Float64Array): number {
  if (isNaNNumber(value)) return 0;
  let low = 0;
  let high = edges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (value <= edges[middle]) high = middle;
    else low = middle + 1;
  }
  return low + 1;
}

interface BinnedData {
  rowCount: number;
  featureCount: number;
  /** Row-major, like the input: `bins[row * featureCount + feature]`; a row's bins share a cache line or two. */
  bins: Uint8Array;
}

function binData(data: Dataset, edges: Float64Array[]): BinnedData {
  const { rowCount, featureCount, values } = data;
  const bins = new Uint8Array(rowCount * featureCount);
  for (let row = 0; row < rowCount; row++) {
    for (let feature = 0; feature < featureCount; feature++) {
      const cell = row * featureCount + feature;
      bins[cell] = binOf(values[cell], edges[feature]);
    }
  }
  return { rowCount, featureCount, bins };
}

interface Split {
  feature: number;
  /** Rows with a bin at most this go left (bin 0, missing, goes where `missingLeft` says). */
  bin: number;
  missingLeft: boolean;
  gain: number;
}

interface GrownTree {
  tree: RegressionTree;
  /** Per inner node, the bin its threshold closes (training only, not serialised). */
  splitBins: number[];
  /** The sampled rows of each leaf, in `order` as the tree left it. */
  leaves: LeafRange[];
}

interface GrowingNode {
  /** Index in the tree's arrays. */
  id: number;
  /** The node's rows are `order[start..end)`. */
  start: number;
  end: number;
  /** Per feature and bin: gradient sum, hessian (weight) sum and, for weighted rows, row count. */
  histogram: Float64Array;
  gradientSum: number;
  hessianSum: number;
}

/**
 * Where a fit's histograms live: `stride` numbers per feature and bin, 3 for weighted rows
 * (gradient, hessian, count) and 2 without weights, where every hessian is 1 and its sum is the
 * row count, exactly. A leaf's histogram is kept for the next node to fill, over every tree of a fit.
 */
interface HistogramPool {
  stride: 2 | 3;
  /** Numbers per feature: bins × stride. */
  featureStride: number;
  /** Numbers in one histogram: features × `featureStride`. */
  size: number;
  free: Float64Array[];
}

function takeHistogram(pool: HistogramPool): Float64Array {
  const reused = pool.free.pop();
  return reused ? reused.fill(0) : new Float64Array(pool.size);
}

/** The rows of one leaf, `order[start..end)`, and what the leaf adds. */
interface LeafRange {
  start: number;
  end: number;
  value: number;
}

/** Fits a model; with validation rows it keeps the round with the lowest validation loss. */
export function fitBoosted(
  train: Dataset,
  validation: Dataset | null,
  overrides: Partial<BoostingParams> = {},
): BoostingResult {
  const params = { ...DEFAULT_BOOSTING_PARAMS, ...overrides };
  const { rowCount, featureCount, targets } = train;
  if (rowCount === 0) throw new Error('fitBoosted: no training rows');
  if (params.maxBins < 3 || params.maxBins > 256) throw new Error('fitBoosted: maxBins must be 3..256');
  const weights = normalisedWeights(train);
  const edges = Array.from({ length: featureCount }, (_, feature) => {
    const column = new Float64Array(rowCount);
    for (let row = 0; row < rowCount; row++) column[row] = train.values[row * featureCount + feature];
    return binEdges(column, params.maxBins);
  });
  const binned = binData(train, edges);
  const base = weightedMean(targets, weights);
  const validationBinned = validation && validation.rowCount > 0 ? binData(validation, edges) : null;
  const boosted = boost({
    params,
    binned,
    edges,
    targets,
    weights,
    base,
    weighted: train.weights !== undefined,
    validation: validation && validationBinned ? { data: validation, binned: validationBinned } : null,
  });
  return {
    model: { featureCount, base, trees: boosted.trees.slice(0, boosted.bestRounds) },
    bestRounds: boosted.bestRounds,
    validationLoss: boosted.validationLoss,
  };
}

/** The (weighted) mean of the targets, one weight per row as `normalisedWeights` gives them. */
function weightedMean(targets: Float64Array, weights: Float64Array): number {
  let sum = 0;
  let weightSum = 0;
  for (let row = 0; row < weights.length; row++) {
    sum += weights[row] * targets[row];
    weightSum += weights[row];
  }
  return weightSum > 0 ? sum / weightSum : 0;
}

interface BoostingInput {
  params: BoostingParams;
  binned: BinnedData;
  edges: Float64Array[];
  targets: Float64Array;
  weights: Float64Array;
  /** The prediction before any tree. */
  base: number;
  /** Whether the rows carry their own weights (else every weight, and so every hessian, is 1). */
  weighted: boolean;
  validation: { data: Dataset; binned: BinnedData } | null;
}

/**
 * The boosting rounds: every tree grown, and how many to keep. In a function of its own, so that
 * the model is put together where no long loop runs: once, in a busy test run on Node 24, a
 * model came back with its trees from its own training but its `base` from the previous call's,
 * as if optimized code entered mid-loop had kept a stale value (not reproduced since).
 */
function boost(input: BoostingInput): Omit<BoostingResult, 'model'> & { trees: RegressionTree[] } {
  const { params, binned, edges, targets, weights, base, validation } = input;
  const { rowCount } = binned;
  const featureCount = edges.length;
  const binCount = params.maxBins;
  const prediction = new Float64Array(rowCount).fill(base);
  // The hold-out's weights and running prediction, beside its rows.
  const held = validation && {
    ...validation,
    weights: normalisedWeights(validation.data),
    prediction: new Float64Array(validation.binned.rowCount).fill(base),
  };

  const random = seededRandom(params.seed);
  const gradients = new Float64Array(rowCount);
  const order = new Uint32Array(rowCount);
  const unsampled = new Uint32Array(rowCount);
  const stride = input.weighted ? 3 : 2;
  const featureStride = binCount * stride;
  const pool: HistogramPool = { stride, featureStride, size: featureCount * featureStride, free: [] };
  const trees: RegressionTree[] = [];
  const validationLoss: number[] = [];
  let bestLoss = Infinity;
  let bestRounds = 0;

  for (let round = 0; round < params.rounds; round++) {
    let sampled = 0;
    let skipped = 0;
    for (let row = 0; row < rowCount; row++) {
      gradients[row] = weights[row] * (targets[row] - prediction[row]);
      if (params.subsample >= 1 || random() < params.subsample) order[sampled++] = row;
      else unsampled[skipped++] = row;
    }
    const allowed = pickFeatures(featureCount, params.featureFraction, random);
    const grown = growTree(binned, order, sampled, gradients, weights, allowed, edges, pool, params);
    trees.push(grown.tree);
    // The sampled rows' leaves are known from the partitions; only the others walk the tree.
    for (const leaf of grown.leaves) {
      for (let position = leaf.start; position < leaf.end; position++)
        prediction[order[position]] += leaf.value;
    }
    addTree(grown, binned, prediction, unsampled, skipped);
    if (held) {
      addTree(grown, held.binned, held.prediction);
      const loss = weightedSquaredError(held.data.targets, held.prediction, held.weights);
      validationLoss.push(loss);
      if (loss < bestLoss - 1e-12) {
        bestLoss = loss;
        bestRounds = round + 1;
      } else if (round + 1 - bestRounds >= params.earlyStoppingRounds) {
        break;
      }
    } else {
      bestRounds = round + 1;
    }
  }
  return { trees, bestRounds, validationLoss };
}

function normalisedWeights(data: Dataset): Float64Array {
  const weights = new Float64Array(data.rowCount);
  if (!data.weights) return weights.fill(1);
  let sum = 0;
  for (let row = 0; row < data.rowCount; row++) {
    const weight = data.weights[row];
    if (!(weight >= 0) || !isFiniteNumber(weight))
      throw new Error('fitBoosted: weights must be finite and ≥ 0');
    sum += weight;
  }
  const scale = sum > 0 ? data.rowCount / sum : 0;
  for (let row = 0; row < data.rowCount; row++) weights[row] = data.weights[row] * scale;
  return weights;
}

function weightedSquaredError(
  targets: Float64Array,
  prediction: Float64Array,
  weights: Float64Array,
): number {
  let sum = 0;
  let weightSum = 0;
  for (let row = 0; row < targets.length; row++) {
    const error = targets[row] - prediction[row];
    sum += weights[row] * error * error;
    weightSum += weights[row];
  }
  return weightSum > 0 ? sum / weightSum : 0;
}

/** The features a tree may split on, ascending. */
function pickFeatures(featureCount: number, fraction: number, random: () => number): Int32Array {
  const indices = Array.from({ length: featureCount }, (_, index) => index);
  if (fraction >= 1) return Int32Array.from(indices);
  const wanted = max(1, round(featureCount * fraction));
  for (let index = 0; index < wanted; index++) {
    const pick = index + floor(random() * (featureCount - index));
    [indices[index], indices[pick]] = [indices[pick], indices[index]];
  }
  return Int32Array.from(indices.slice(0, wanted)).sort();
}

/** Sums the gradients of `order[start..end)` per feature and bin (only the allowed features). */
function buildHistogram(
  data: BinnedData,
  order: Uint32Array,
  start: number,
  end: number,
  gradients: Float64Array,
  hessians: Float64Array,
  allowed: Int32Array,
  pool: HistogramPool,
): GrowingNode {
  const { bins, featureCount } = data;
  const histogram = takeHistogram(pool);
  const { stride, featureStride } = pool;
  const allowedCount = allowed.length;
  let gradientSum = 0;
  let hessianSum = 0;
  // Weighted rows count their rows in a third number; without weights the hessian sum is the count.
  const counted = stride === 3;
  for (let position = start; position < end; position++) {
    const row = order[position];
    const gradient = gradients[row];
    const hessian = hessians[row];
    gradientSum += gradient;
    hessianSum += hessian;
    const base = row * featureCount;
    for (let index = 0; index < allowedCount; index++) {
      const feature = allowed[index];
      const slot = feature * featureStride + bins[base + feature] * stride;
      histogram[slot] += gradient;
      histogram[slot + 1] += hessian;
      if (counted) histogram[slot + 2] += 1;
    }
  }
  return { id: -1, start, end, histogram, gradientSum, hessianSum };
}

function growTree(
  data: BinnedData,
  order: Uint32Array,
  sampled: number,
  gradients: Float64Array,
  hessians: Float64Array,
  allowed: Int32Array,
  edges: Float64Array[],
  pool: HistogramPool,
  params: BoostingParams,
): GrownTree {
  const tree: { [column in keyof RegressionTree]: number[] } = {
    feature: [],
    threshold: [],
    missingLeft: [],
    left: [],
    right: [],
    value: [],
  };
  const splitBins: number[] = [];
  const leaves: LeafRange[] = [];
  const { featureStride } = pool;
  const newNode = () => {
    splitBins.push(0);
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.missingLeft.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    return tree.feature.length - 1;
  };

  const root = buildHistogram(data, order, 0, sampled, gradients, hessians, allowed, pool);
  root.id = newNode();
  let level: GrowingNode[] = [root];
  for (let depth = 0; depth <= params.maxDepth && level.length > 0; depth++) {
    const next: GrowingNode[] = [];
    for (const node of level) {
      const split =
        depth < params.maxDepth && node.end - node.start >= 2 * params.minLeafRows
          ? bestSplit(node, allowed, edges, pool, params)
          : null;
      if (!split) {
        const value = (params.learningRate * node.gradientSum) / (node.hessianSum + params.lambda);
        tree.value[node.id] = value;
        leaves.push({ start: node.start, end: node.end, value });
        pool.free.push(node.histogram);
        continue;
      }
      const middle = partition(data, order, node.start, node.end, split);
      // Histogram the smaller child from its rows, the larger one as parent minus sibling.
      const smallIsLeft = middle - node.start <= node.end - middle;
      const small = smallIsLeft
        ? buildHistogram(data, order, node.start, middle, gradients, hessians, allowed, pool)
        : buildHistogram(data, order, middle, node.end, gradients, hessians, allowed, pool);
      const histogram = node.histogram;
      const smallHistogram = small.histogram;
      for (const feature of allowed) {
        const end = (feature + 1) * featureStride;
        for (let slot = feature * featureStride; slot < end; slot++) histogram[slot] -= smallHistogram[slot];
      }
      const large: GrowingNode = {
        id: -1,
        start: smallIsLeft ? middle : node.start,
        end: smallIsLeft ? node.end : middle,
        histogram,
        gradientSum: node.gradientSum - small.gradientSum,
        hessianSum: node.hessianSum - small.hessianSum,
      };
      const left = smallIsLeft ? small : large;
      const right = smallIsLeft ? large : small;
      left.id = newNode();
      right.id = newNode();
      tree.feature[node.id] = split.feature;
      tree.threshold[node.id] = edges[split.feature][split.bin - 1];
      splitBins[node.id] = split.bin;
      tree.missingLeft[node.id] = split.missingLeft ? 1 : 0;
      tree.left[node.id] = left.id;
      tree.right[node.id] = right.id;
      next.push(left, right);
    }
    level = next;
  }
  return { tree, splitBins, leaves };
}

function bestSplit(
  node: GrowingNode,
  allowed: Int32Array,
  edges: Float64Array[],
  pool: HistogramPool,
  params: BoostingParams,
): Split | null {
  const { lambda, minLeafRows } = params;
  const { histogram } = node;
  const { stride } = pool;
  // A bin's row count: its own number, or without weights its hessian sum.
  const count = stride - 1;
  const rows = node.end - node.start;
  const parentScore = (node.gradientSum * node.gradientSum) / (node.hessianSum + lambda);
  let best: Split | null = null;
  for (const feature of allowed) {
    const usedBins = edges[feature].length + 1;
    if (usedBins < 2) continue;
    const offset = feature * pool.featureStride;
    const missingGradient = histogram[offset];
    const missingHessian = histogram[offset + 1];
    const missingCount = histogram[offset + count];
    for (const missingLeft of missingCount > 0 ? [true, false] : [false]) {
      let gradientLeft = missingLeft ? missingGradient : 0;
      let hessianLeft = missingLeft ? missingHessian : 0;
      let countLeft = missingLeft ? missingCount : 0;
      // Cut after bin `bin` (1-based); the last bin never goes left alone.
      for (let bin = 1; bin < usedBins; bin++) {
        const slot = offset + bin * stride;
        gradientLeft += histogram[slot];
        hessianLeft += histogram[slot + 1];
        countLeft += histogram[slot + count];
        const countRight = rows - countLeft;
        if (countLeft < minLeafRows) continue;
        if (countRight < minLeafRows) break;
        const gradientRight = node.gradientSum - gradientLeft;
        const hessianRight = node.hessianSum - hessianLeft;
        const gain =
          (gradientLeft * gradientLeft) / (hessianLeft + lambda) +
          (gradientRight * gradientRight) / (hessianRight + lambda) -
          parentScore;
        if (gain > 1e-12 && (!best || gain > best.gain)) best = { feature, bin, missingLeft, gain };
      }
    }
  }
  return best;
}

/** Reorders `order[start..end)` so the rows going left come first; returns where the right ones start. */
function partition(data: BinnedData, order: Uint32Array, start: number, end: number, split: Split): number {
  const { bins, featureCount } = data;
  let low = start;
  let high = end - 1;
  while (low <= high) {
    const bin = bins[order[low] * featureCount + split.feature];
    const goesLeft = bin === 0 ? split.missingLeft : bin <= split.bin;
    if (goesLeft) {
      low++;
    } else {
      const swap = order[low];
      order[low] = order[high];
      order[high] = swap;
      high--;
    }
  }
  return low;
}

/**
 * Adds a tree's output to the prediction of `rows[0..count)` (every row without them), walking it
 * on bins: `splitBins[node]` is the bin whose upper edge is the node's threshold, so this agrees
 * with `predictBoosted` on raw values, and with the partitions that grew the tree.
 */
function addTree(
  grown: GrownTree,
  data: BinnedData,
  prediction: Float64Array,
  rows: Uint32Array | null = null,
  count = data.rowCount,
): void {
  const { feature, missingLeft, left, right, value } = grown.tree;
  const { splitBins } = grown;
  const { bins, featureCount } = data;
  for (let index = 0; index < count; index++) {
    const row = rows ? rows[index] : index;
    let node = 0;
    const base = row * featureCount;
    while (feature[node] >= 0) {
      const bin = bins[base + feature[node]];
      const goesLeft = bin === 0 ? missingLeft[node] === 1 : bin <= splitBins[node];
      node = goesLeft ? left[node] : right[node];
    }
    prediction[row] += value[node];
  }
}

/** The model's prediction for one row of raw feature values (NaN for missing). */
export function predictBoosted(model: BoostedModel, row: ArrayLike<number>, offset = 0): number {
  let sum = model.base;
  for (const tree of model.trees) {
    let node = 0;
    while (tree.feature[node] >= 0) {
      const value = row[offset + tree.feature[node]];
      const goesLeft = isNaNNumber(value) ? tree.missingLeft[node] === 1 : value <= tree.threshold[node];
      node = goesLeft ? tree.left[node] : tree.right[node];
    }
    sum += tree.value[node];
  }
  return sum;
}

/** Predictions for every row of a row-major matrix. */
export function predictBoostedRows(
  model: BoostedModel,
  values: Float64Array,
  rowCount: number,
): Float64Array {
  const out = new Float64Array(rowCount);
  for (let row = 0; row < rowCount; row++) out[row] = predictBoosted(model, values, row * model.featureCount);
  return out;
}

/** Checks the shape of a parsed model (it comes back from the database as JSON). */
export function isBoostedModel(value: unknown): value is BoostedModel {
  if (typeof value !== 'object' || value === null) return false;
  const model = value as Partial<BoostedModel>;
  return (
    typeof model.featureCount === 'number' &&
    typeof model.base === 'number' &&
    Array.isArray(model.trees) &&
    model.trees.every(
      (tree) =>
        Array.isArray(tree.feature) &&
        Array.isArray(tree.threshold) &&
        Array.isArray(tree.missingLeft) &&
        Array.isArray(tree.left) &&
        Array.isArray(tree.right) &&
        Array.isArray(tree.value) &&
        tree.threshold.length === tree.feature.length &&
        tree.value.length === tree.feature.length,
    )
  );
}
