export * from './metric-families';
export * from './registry';
export * from './sampled-gauge';
