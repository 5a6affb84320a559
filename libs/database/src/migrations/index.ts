import { CreateUsers1764000000000 } from './1764000000000-create-users';

/** Every migration, in order. Listed explicitly so the build and the tests run the same set. */
export const migrations = [CreateUsers1764000000000];
