import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ConformanceCase } from './adapter-conformance-cases.js';

/**
 * One case per fixture file: `<folder>/<name>` must hold exactly `JSON.stringify(value, null, 2)`
 * plus a newline, so JSON fixtures never drift from the SDK-typed source that builds them (write
 * the source with `satisfies <SdkType>`). With `UPDATE_FIXTURES=1` in the environment each case
 * first rewrites its file.
 */
export function fixtureDriftCases(fixtures: Readonly<Record<string, unknown>>, folder: URL): ConformanceCase[] {
  return Object.entries(fixtures).map(([name, value]) => ({
    name: `${name} matches the SDK-typed source`,
    run() {
      const file = new URL(name, folder);
      const expected = `${JSON.stringify(value, null, 2)}\n`;
      if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(file, expected);
      assert.equal(readFileSync(file, 'utf8'), expected, `${name} drifted; rerun with UPDATE_FIXTURES=1`);
    },
  }));
}
