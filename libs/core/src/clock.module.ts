import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from './clock';

/** One clock for the whole app, so a test that moves it moves it everywhere. */
@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {
  /** The same module with a given clock (tests move time with it). */
  static with(clock: Clock): DynamicModule {
    return {
      module: ClockModule,
      global: true,
      providers: [{ provide: Clock, useValue: clock }],
      exports: [Clock],
    };
  }
}
