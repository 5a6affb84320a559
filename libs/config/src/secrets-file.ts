import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface GeneratedSecrets {
  INTERNAL_API_KEY: string;
  SESSION_SECRET: string;
  SECRETS_KEY: string;
}

function generate(): GeneratedSecrets {
  return {
    INTERNAL_API_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(48).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
  };
}

/**
 * Reads `{dataDir}/secrets.json`, creating it (mode 0600) on first use. Creation uses an
 * exclusive open so that three apps starting together agree on one set of secrets.
 */
export function readOrCreateSecretsFile(dataDir: string): GeneratedSecrets {
  const path = join(dataDir, 'secrets.json');
  mkdirSync(dataDir, { recursive: true });
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, JSON.stringify(generate(), null, 2));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A concurrent creator may still be writing: retry briefly until the file parses.
  for (let attempt = 0; ; attempt++) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as GeneratedSecrets;
    } catch (error) {
      if (attempt >= 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
