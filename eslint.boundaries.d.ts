import type { Linter } from 'eslint';

/** A crossing allowed for one file or folder (ending in `/`): an alias or a folder it may enter. */
export interface BoundaryException {
  from: string;
  allow: string[];
  reason: string;
}

export declare const LAYERS: string[][];
export declare const EXCEPTIONS: BoundaryException[];
export declare function boundaries(exceptions?: BoundaryException[]): Linter.Config[];
