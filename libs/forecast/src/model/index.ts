export { trainForecaster } from './train';
export { forecast, forecastWithPhysics } from './predict';
