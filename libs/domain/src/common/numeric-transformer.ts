import { ValueTransformer } from 'typeorm';

/** PostgreSQL `numeric` arrives as a string (it can exceed a double); our amounts fit in one. */
export const numericTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
