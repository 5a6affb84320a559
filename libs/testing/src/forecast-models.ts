import { BoostedModel, isPackedBoostedModel, TrainedModel, unpackBoostedModel } from '@solar/forecast';

/** A boosted model with its trees as plain arrays, as training makes them and older models stored them. */
export function withPlainArrays(model: BoostedModel): BoostedModel {
  return {
    ...model,
    trees: model.trees.map((tree) => ({
      feature: Array.from(tree.feature),
      threshold: Array.from(tree.threshold),
      missingLeft: Array.from(tree.missingLeft),
      left: Array.from(tree.left),
      right: Array.from(tree.right),
      value: Array.from(tree.value),
    })),
  };
}

/** `model` as models were stored before their trees were packed: each tree's node arrays as JSON arrays. */
export function withTreesAsArrays(model: TrainedModel): TrainedModel {
  const payload = model.payload as { models: Record<string, unknown> };
  const models = Object.fromEntries(
    Object.entries(payload.models).map(([set, learner]) => {
      const unpacked = isPackedBoostedModel(learner) ? unpackBoostedModel(learner) : null;
      return [set, unpacked ? withPlainArrays(unpacked) : learner];
    }),
  );
  return { ...model, payload: { ...payload, models } };
}
