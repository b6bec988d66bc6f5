import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (this file runs from `apps/demo/src` in tests and `apps/demo/dist` in the demo). */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** Where the demo keeps its SQLite file by default (gitignored). */
export const DEMO_DATA_DIR = resolve(import.meta.dirname, '..', 'data');

/** Reads a JSON file under the repository's `fixtures/`. */
export function readFixture(...segments: string[]): unknown {
  return JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'fixtures', ...segments), 'utf8')) as unknown;
}
