export * from './irradiance';
export * from './solar-position';
