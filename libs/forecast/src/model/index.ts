export { trainForecaster, TRAINING_DAYS } from './train';
export { describeRetrainingRule, RETRAINING_RULE, retrainingCutoffs, retrainingDue } from './retraining';
export { forecast, forecastWithPhysics } from './predict';
export { planeNormal } from './pv-physics';
export { withPackedTrees } from './model-payload';
export { isPackedBoostedModel, packBoostedModel, unpackBoostedModel } from './packed-trees';
export type { PackedBoostedModel } from './packed-trees';
export type { BoostedModel, RegressionTree } from './gradient-boosting';
