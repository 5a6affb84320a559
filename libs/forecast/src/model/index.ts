export { trainForecaster } from './train';
export { forecast } from './predict';
