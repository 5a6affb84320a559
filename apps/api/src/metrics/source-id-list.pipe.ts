import { Injectable, PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { BadRequestError } from '@solar/core';
import { QueryLimits } from '@solar/telemetry';

/** The body of `POST batch/latest`: a JSON array of at most 50 source ids. */
@Injectable()
export class SourceIdListPipe implements PipeTransform<unknown, string[]> {
  transform(value: unknown): string[] {
    if (!Array.isArray(value)) throw new BadRequestError('Body must be a JSON array of source ids');
    if (value.length > QueryLimits.batchLatestSources) throw new BadRequestError('At most 50 source ids');
    if (!value.every((id) => typeof id === 'string' && isUUID(id))) {
      throw new BadRequestError('Every source id must be a UUID');
    }
    return value as string[];
  }
}
