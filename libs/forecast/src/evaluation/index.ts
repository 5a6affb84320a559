export * from './solar-accuracy';
export * from './day-ahead-accuracy';
