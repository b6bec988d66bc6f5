import { fakeToolCall } from '@toolseal/adapter-core/testing';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '@toolseal/digests';
import { KIT_LOOKUP_SPEC, KIT_WRITE_SPEC } from './conformance-tool-specs.js';
import { createConformanceHarness, KIT_DATA_MARKER } from './create-conformance-harness.js';

describe('createConformanceHarness', () => {
  const lookup = (text: string) => fakeToolCall({ tool_name: 'kit_lookup', arguments: { format: 'json_text', text } });

  it('seals each outcome it is asked for on the kit tools', () => {
    const harness = createConformanceHarness();
    expect(harness.seal(lookup('{"item_id":"I-1"}')).model_result.status).toBe('succeeded');
    expect(harness.seal(lookup('{"item_id":"I-1"}'), { outcome: 'error' }).model_result.error?.code).toBe('NOT_FOUND');
    expect(harness.seal(lookup('{"item_id":"I-1"}'), { outcome: 'outcome_unknown' }).model_result.status).toBe('unknown');
    const write = fakeToolCall({ tool_name: 'kit_write', arguments: { format: 'json_value', value: { item_id: 'I-1', amount: 5 } } });
    expect(harness.seal(write).model_result.status).toBe('succeeded');
  });

  it('throws for a tool it does not know, rather than seal an UNKNOWN_TOOL failure whatever outcome was asked (review finding)', () => {
    const harness = createConformanceHarness();
    for (const outcome of ['data', 'error', 'outcome_unknown'] as const) {
      expect(() => harness.seal(fakeToolCall({ tool_name: 'get_order' }), { outcome })).toThrow(/knows only kit_lookup/);
    }
  });

  it('throws when a data result cannot be sealed for the arguments given', () => {
    const harness = createConformanceHarness();
    expect(() => harness.seal(lookup('{"order_id":"A"}'))).toThrow(/arguments do not fit its contract/);
    // An extra key the input schema refuses (review of the fix: the output still fit, so it sealed as succeeded).
    expect(() => harness.seal(lookup('{"item_id":"I-1","extra":1}'))).toThrow(/arguments do not fit its contract/);
    expect(() => harness.seal(lookup('not json'))).toThrow(/arguments do not fit its contract/);
    // An error outcome needs no fitting arguments.
    expect(harness.seal(lookup('{"order_id":"A"}'), { outcome: 'error' }).model_result.error?.code).toBe('NOT_FOUND');
  });

  it('plants the data marker once in every data result, and nowhere in an error result', () => {
    const harness = createConformanceHarness();
    const write = fakeToolCall({ tool_name: 'kit_write', arguments: { format: 'json_value', value: { item_id: 'I-1', amount: 5 } } });
    for (const sealed of [harness.seal(lookup('{"item_id":"I-1"}')), harness.seal(write)]) {
      expect(canonicalize(sealed.model_result).split(KIT_DATA_MARKER)).toHaveLength(2);
      expect(JSON.stringify(sealed.protected_audit)).not.toContain(KIT_DATA_MARKER);
    }
    expect(canonicalize(harness.seal(lookup('{"item_id":"I-1"}'), { outcome: 'error' }).model_result)).not.toContain(KIT_DATA_MARKER);
  });

  it('keeps what sealResult returned only when asked: canonicalTextOf then vouches for the very packages seal returned', () => {
    const call = lookup('{"item_id":"I-1"}');
    const plain = createConformanceHarness();
    expect(plain.verify.canonicalTextOf?.(plain.seal(call), call)).toBeUndefined();
    const keeping = createConformanceHarness({ keepSealed: true });
    const sealed = keeping.seal(call);
    expect(keeping.verify.canonicalTextOf?.(sealed, call)).toBe(canonicalize(sealed.model_result));
    expect(keeping.verify.canonicalTextOf?.(structuredClone(sealed), call)).toBeUndefined();
    expect(keeping.verify(sealed, call)).toEqual({ ok: true });
  });

  it.each([false, true])('retrustRegistry and retrustClock make verification refuse packages sealed before (keepSealed %s)', (keepSealed) => {
    const call = lookup('{"item_id":"I-1"}');
    const revised = { ...KIT_LOOKUP_SPEC, contract: { ...KIT_LOOKUP_SPEC.contract, output_revision: 'kit-lookup-output-r2' } };
    const changes = [
      (harness: ReturnType<typeof createConformanceHarness>) => harness.retrustRegistry([revised, KIT_WRITE_SPEC]),
      (harness: ReturnType<typeof createConformanceHarness>) => harness.retrustRegistry([KIT_WRITE_SPEC]),
      (harness: ReturnType<typeof createConformanceHarness>) => harness.retrustClock('2026-07-01T00:00:00Z'),
    ];
    for (const change of changes) {
      const harness = createConformanceHarness({ keepSealed });
      const sealed = harness.seal(call);
      expect(harness.verify(sealed, call)).toEqual({ ok: true });
      change(harness);
      expect(harness.verify(sealed, call).ok).toBe(false);
    }
    // A clock reading after the data was observed changes nothing.
    const harness = createConformanceHarness({ keepSealed });
    const sealed = harness.seal(call);
    harness.retrustClock('2026-07-19T00:00:05Z');
    expect(harness.verify(sealed, call)).toEqual({ ok: true });
  });
});
