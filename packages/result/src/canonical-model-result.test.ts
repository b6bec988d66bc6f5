import type { ModelResult } from '@toolseal/contracts';
import { CanonicalizationError, canonicalize } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDataOf, composeCanonicalModelResult } from './canonical-model-result.js';

/** Text that stresses the string encoder and the `,"error":` search alike. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '😀', ',', ':', 'error') }),
  fc.constantFrom(',"error":', '","error":null', '\\",\\"error\\":'),
);
const key = fc.oneof(text, fc.constantFrom('error', 'data', 'status', 'execution'));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
const data = fc.oneof(fc.constant(null), fc.dictionary(key, json.value, { maxKeys: 6 }));
const error = fc.oneof(
  fc.constant(null),
  fc.record({
    code: fc.constantFrom('NOT_FOUND', 'TOOL_ERROR'),
    category: text,
    safe_message: text,
    recovery: text,
    retry_after_ms: fc.oneof(fc.constant(null), fc.nat()),
    reasons: fc.array(fc.record({ field: text, rule: text }), { maxLength: 3 }),
  }),
);
const modelResult = fc.record({
  schema_version: fc.oneof(fc.constant('tool-model-result-v2'), text),
  status: fc.oneof(fc.constantFrom('succeeded', 'failed', 'unknown'), text),
  data,
  error,
  execution: fc.record({
    outcome: fc.oneof(fc.constantFrom('not_started', 'committed', 'unknown'), text),
    delivery: fc.oneof(fc.constantFrom('fresh', 'local_replay', 'receipt_reconciled'), text),
    complete: fc.boolean(),
    truncated: fc.boolean(),
  }),
  provenance: fc.record({
    source_label: text,
    producer_revision: text,
    resource_revision: fc.oneof(fc.constant(null), text),
    observed_at: fc.oneof(fc.constant('2026-07-19T00:00:00Z'), text),
    trust: fc.oneof(fc.constantFrom('untrusted_data', 'trusted_control'), text),
  }),
}) as unknown as fc.Arbitrary<ModelResult>;

describe('composeCanonicalModelResult', () => {
  it('is byte-identical to canonicalize(model_result), with or without an error', () => {
    fc.assert(
      fc.property(modelResult, (result) => {
        expect(composeCanonicalModelResult(canonicalize(result.data), result)).toBe(canonicalize(result));
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses a lone surrogate in a fixed member, as canonicalize does', () => {
    fc.assert(
      fc.property(
        modelResult,
        fc.constantFrom('observed_at', 'producer_revision', 'resource_revision', 'source_label'),
        (result, member) => {
          const broken = { ...result, error: null, provenance: { ...result.provenance, [member]: 'rev-\ud800' } };
          expect(() => canonicalize(broken)).toThrow(CanonicalizationError);
          expect(() => composeCanonicalModelResult(canonicalize(result.data), broken)).toThrow(CanonicalizationError);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('canonicalDataOf', () => {
  it('finds exactly canonicalize(data), even when data holds members named error', () => {
    fc.assert(
      fc.property(modelResult, (result) => {
        expect(canonicalDataOf(canonicalize(result))).toBe(canonicalize(result.data));
      }),
      { numRuns: 3_000 },
    );
  });

  it('answers null for text of another shape', () => {
    expect(canonicalDataOf('{"error":null}')).toBeNull();
    expect(canonicalDataOf('{"data":{"a":1}}')).toBeNull();
    expect(canonicalDataOf('[]')).toBeNull();
    expect(canonicalDataOf('{"data":,"error":null}')).toBeNull();
  });
});
