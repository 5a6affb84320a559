export * from './solar';
export * from './forecaster';
export * from './model';
export * from './evaluation';
