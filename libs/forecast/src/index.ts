export * from './solar';
export * from './forecaster';
