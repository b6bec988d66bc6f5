// The adapters bound a presented model_result before canonicalizing it
// (`PRESENTED_MODEL_RESULT_LIMITS` of @toolseal/adapter-core); those bounds must admit every result
// a registry of @toolseal/result can seal: its output ceilings plus the envelope around `data`.
import { PRESENTED_MODEL_RESULT_LIMITS } from '@toolseal/adapter-core';
import { createToolRegistry, RegistryError, type ToolSpec } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { loadToolSpecs } from './__fixtures__/test-host.js';

/** What the envelope around `data` may add to each bound (the model_result object, its members). */
const ENVELOPE_SLACK = { maxBytes: 65_536, maxDepth: 2, maxArrayItems: 0, maxObjectKeys: 0, maxStringLength: 0, maxTotalNodes: 1_024 } as const;

function withLimits(limits: Record<string, number>): ToolSpec {
  const spec = structuredClone(loadToolSpecs().getOrder);
  return { ...spec, limits: { ...spec.limits, ...limits } } as ToolSpec;
}

describe('the adapters admit every result a registry can seal', () => {
  for (const name of Object.keys(ENVELOPE_SLACK) as (keyof typeof ENVELOPE_SLACK)[]) {
    it(`${name}: the registry accepts a tool limit up to the adapters' bound less the envelope, and refuses one above it`, () => {
      const highest = PRESENTED_MODEL_RESULT_LIMITS[name] - ENVELOPE_SLACK[name];
      expect(() => createToolRegistry([withLimits({ [name]: highest })])).not.toThrow();
      expect(() => createToolRegistry([withLimits({ [name]: highest + 1 })])).toThrow(RegistryError);
      expect(() => createToolRegistry([withLimits({ [name]: highest + 1 })])).toThrow(`limits.${name}`);
    });
  }
});
