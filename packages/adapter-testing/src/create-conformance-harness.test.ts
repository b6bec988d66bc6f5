import { fakeToolCall } from '@toolseal/adapter-core/testing';
import { describe, expect, it } from 'vitest';
import { createConformanceHarness } from './create-conformance-harness.js';

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
});
