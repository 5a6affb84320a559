import { isPackedBoostedModel, TrainedModel, unpackBoostedModel } from '@solar/forecast';

/** `model` as models were stored before their trees were packed: each tree's node arrays as JSON arrays. */
export function withTreesAsArrays(model: TrainedModel): TrainedModel {
  const payload = model.payload as { models: Record<string, unknown> };
  const models = Object.fromEntries(
    Object.entries(payload.models).map(([set, learner]) => {
      const unpacked = isPackedBoostedModel(learner) ? unpackBoostedModel(learner) : null;
      if (!unpacked) return [set, learner];
      const trees = unpacked.trees.map((tree) =>
        Object.fromEntries(Object.entries(tree).map(([column, values]) => [column, Array.from(values)])),
      );
      return [set, { ...unpacked, trees }];
    }),
  );
  return { ...model, payload: { ...payload, models } };
}
