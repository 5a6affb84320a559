import { Injectable } from '@nestjs/common';

/** The time source of every rule that depends on "now"; tests replace it to move time. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
