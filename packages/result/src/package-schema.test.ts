// The runtime schemas restate the generated contracts schemas: on the same samples (every sealed
// fixture and every single-leaf change of it) both must give the same verdict, except that the
// runtime schema leaves `data` to the tool's output contract.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SealedResult } from '@toolseal/contracts';
import { compileSchema } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, copy, loadKbCases } from './__fixtures__/load-fixtures.js';
import { alternativeFor, leavesOf, pathText, withLeaf } from './__fixtures__/leaves.js';
import { MODEL_RESULT_SCHEMA, PROTECTED_AUDIT_SCHEMA } from './package-schema.js';

const SCHEMAS_DIR = join(FIXTURES_DIR, '..', 'schemas');
const generated = (name: string): object => JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as object;

const pairs = [
  { name: 'model-result', part: 'model_result', runtime: compileSchema(MODEL_RESULT_SCHEMA), generated: compileSchema(generated('model-result')) },
  { name: 'protected-audit', part: 'protected_audit', runtime: compileSchema(PROTECTED_AUDIT_SCHEMA), generated: compileSchema(generated('protected-audit')) },
] as const;

const packages: SealedResult[] = loadKbCases().map((entry) => entry.sealed);

function variants(value: unknown): { label: string; value: unknown }[] {
  const out: { label: string; value: unknown }[] = [{ label: 'as sealed', value }];
  for (const leaf of leavesOf(value)) {
    const label = pathText(leaf.path);
    // Data is the tool contract's business: only its presence and kind are compared here.
    if (label.startsWith('/data/')) continue;
    for (const replacement of [alternativeFor(leaf.value), null, 7, 'x'.repeat(300), true]) {
      out.push({ label: `${label} = ${JSON.stringify(replacement).slice(0, 20)}`, value: withLeaf(value, leaf.path, replacement) });
    }
  }
  const record = copy(value) as Record<string, unknown>;
  record.extra = 1;
  out.push({ label: 'extra member', value: record });
  return out;
}

describe.each(pairs)('runtime $name schema', ({ part, runtime, generated: fromTypes }) => {
  it('gives the same verdict as the generated schema on every sample', () => {
    let compared = 0;
    let rejected = 0;
    for (const sealed of packages) {
      for (const { label, value } of variants(sealed[part])) {
        const expected = fromTypes(value);
        expect(runtime(value), label).toBe(expected);
        compared++;
        if (!expected) rejected++;
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(rejected).toBeGreaterThan(100);
  });
});
