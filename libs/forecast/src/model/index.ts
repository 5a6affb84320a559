export { trainForecaster, TRAINING_DAYS } from './train';
export { forecast, forecastWithPhysics } from './predict';
export { planeNormal } from './pv-physics';
