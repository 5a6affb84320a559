export * from './solar-accuracy';
