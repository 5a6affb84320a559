import {
  binEdges,
  binOf,
  Dataset,
  fitBoosted,
  isBoostedModel,
  predictBoosted,
  predictBoostedRows,
  seededRandom,
} from './gradient-boosting';

/** y = sin(2πx₀)·x₁ + step(x₂ > 0.3) + noise, with x₃ pure noise: non-linear, with an interaction. */
function dataset(rowCount: number, seed: number, noise = 0.05): Dataset {
  const random = seededRandom(seed);
  const featureCount = 4;
  const values = new Float64Array(rowCount * featureCount);
  const targets = new Float64Array(rowCount);
  for (let row = 0; row < rowCount; row++) {
    const x = [random(), random() * 2, random(), random()];
    values.set(x, row * featureCount);
    targets[row] = Math.sin(2 * Math.PI * x[0]) * x[1] + (x[2] > 0.3 ? 1 : 0) + noise * (random() - 0.5);
  }
  return { rowCount, featureCount, values, targets };
}

const rmse = (data: Dataset, predictions: Float64Array) =>
  Math.sqrt(
    data.targets.reduce((sum, target, row) => sum + (target - predictions[row]) ** 2, 0) / data.rowCount,
  );

describe('binning', () => {
  it('gives each of few distinct values its own bin and keeps 0 for missing', () => {
    const edges = binEdges(Float64Array.from([3, 1, 2, 2, NaN, 1]), 16);
    expect([...edges]).toEqual([1, 2]);
    expect([NaN, 0.5, 1, 1.5, 2, 3, 99].map((value) => binOf(value, edges))).toEqual([0, 1, 1, 2, 2, 3, 3]);
  });

  it('cuts many values at quantiles into at most maxBins − 1 non-missing bins', () => {
    const column = Float64Array.from({ length: 1000 }, (_, index) => index);
    const edges = binEdges(column, 11);
    expect(edges.length).toBeLessThanOrEqual(9);
    const counts = new Map<number, number>();
    for (const value of column) counts.set(binOf(value, edges), (counts.get(binOf(value, edges)) ?? 0) + 1);
    expect(counts.size).toBe(edges.length + 1);
    for (const count of counts.values()) expect(count).toBeGreaterThan(50);
  });
});

describe('fitBoosted', () => {
  const train = dataset(4000, 1);
  const validation = dataset(1000, 2);
  const test = dataset(2000, 3);

  it('fits a known non-linear function far better than a constant', () => {
    const { model } = fitBoosted(train, validation, { rounds: 300 });
    const constant = new Float64Array(test.rowCount).fill(model.base);
    const fitted = predictBoostedRows(model, test.values, test.rowCount);
    expect(rmse(test, fitted)).toBeLessThan(0.15);
    expect(rmse(test, fitted)).toBeLessThan(0.2 * rmse(test, constant));
  });

  it('stops early on the validation rows and keeps the best round', () => {
    const result = fitBoosted(train, validation, {
      rounds: 2000,
      learningRate: 0.3,
      earlyStoppingRounds: 10,
    });
    expect(result.bestRounds).toBeLessThan(2000);
    expect(result.model.trees).toHaveLength(result.bestRounds);
    const best = Math.min(...result.validationLoss);
    expect(result.validationLoss[result.bestRounds - 1]).toBe(best);
  });

  it('is deterministic: same data and seed, same model', () => {
    const first = fitBoosted(train, null, { rounds: 30 });
    const second = fitBoosted(train, null, { rounds: 30 });
    expect(JSON.stringify(second.model)).toBe(JSON.stringify(first.model));
  });

  it('round-trips through JSON and predicts identically', () => {
    const { model } = fitBoosted(train, validation, { rounds: 100 });
    const parsed: unknown = JSON.parse(JSON.stringify(model));
    expect(isBoostedModel(parsed)).toBe(true);
    if (!isBoostedModel(parsed)) return;
    for (let row = 0; row < 200; row++) {
      expect(predictBoosted(parsed, test.values, row * test.featureCount)).toBe(
        predictBoosted(model, test.values, row * test.featureCount),
      );
    }
  });

  it('learns where missing values should go', () => {
    // The target is 5 exactly where x₀ is missing, 0 otherwise: only the missing branch can tell.
    const rowCount = 2000;
    const values = new Float64Array(rowCount);
    const targets = new Float64Array(rowCount);
    const random = seededRandom(7);
    for (let row = 0; row < rowCount; row++) {
      const missing = row % 4 === 0;
      values[row] = missing ? NaN : random();
      targets[row] = missing ? 5 : 0;
    }
    const { model } = fitBoosted({ rowCount, featureCount: 1, values, targets }, null, { rounds: 100 });
    expect(predictBoosted(model, [NaN])).toBeCloseTo(5, 1);
    expect(predictBoosted(model, [0.5])).toBeCloseTo(0, 1);
  });

  it('grows the same model from weights of 1 as from no weights', () => {
    // Without weights the histograms keep no row counts (each hessian is 1, their sum the count):
    // both layouts must choose the same splits.
    const rowCount = 1500;
    const data = dataset(rowCount, 11);
    for (let row = 0; row < rowCount; row += 7) data.values[row * data.featureCount + 2] = NaN;
    const held = dataset(300, 12);
    const ones = { ...data, weights: new Float64Array(rowCount).fill(1) };
    const plain = fitBoosted(data, held, { rounds: 60 });
    const weighted = fitBoosted(ones, held, { rounds: 60 });
    expect(plain.model.trees.length).toBeGreaterThan(10);
    expect(JSON.stringify(weighted.model)).toBe(JSON.stringify(plain.model));
    expect(weighted.validationLoss).toEqual(plain.validationLoss);
  });

  it('fits each tree to the residuals the trees before it leave', () => {
    // With every row sampled and no penalty, a leaf is the learning rate times the mean residual
    // of the rows that reach it: the running predictions kept during training must be exact.
    const learningRate = 0.2;
    const { model } = fitBoosted(train, null, {
      rounds: 12,
      subsample: 1,
      featureFraction: 1,
      lambda: 0,
      learningRate,
    });
    const leafOf = (tree: (typeof model.trees)[number], row: number) => {
      let node = 0;
      while (tree.feature[node] >= 0) {
        const value = train.values[row * train.featureCount + tree.feature[node]];
        node = value <= tree.threshold[node] ? tree.left[node] : tree.right[node];
      }
      return node;
    };
    const prediction = new Float64Array(train.rowCount).fill(model.base);
    for (const tree of model.trees) {
      const residuals = new Map<number, { sum: number; rows: number }>();
      for (let row = 0; row < train.rowCount; row++) {
        const leaf = leafOf(tree, row);
        const entry = residuals.get(leaf) ?? { sum: 0, rows: 0 };
        entry.sum += train.targets[row] - prediction[row];
        entry.rows++;
        residuals.set(leaf, entry);
      }
      expect(residuals.size).toBeGreaterThan(1);
      for (const [leaf, { sum, rows }] of residuals)
        expect(tree.value[leaf]).toBeCloseTo((learningRate * sum) / rows, 9);
      for (let row = 0; row < train.rowCount; row++) prediction[row] += tree.value[leafOf(tree, row)];
    }
  });

  it('honours sample weights', () => {
    // Two groups with the same features and different targets: the leaf is their weighted mean.
    const rowCount = 400;
    const values = new Float64Array(rowCount).fill(1);
    const targets = Float64Array.from({ length: rowCount }, (_, row) => (row % 2 === 0 ? 0 : 10));
    const weights = Float64Array.from({ length: rowCount }, (_, row) => (row % 2 === 0 ? 1 : 3));
    const { model } = fitBoosted({ rowCount, featureCount: 1, values, targets, weights }, null, {
      rounds: 50,
      lambda: 0,
      subsample: 1,
    });
    expect(predictBoosted(model, [1])).toBeCloseTo(7.5, 6);
  });
});
