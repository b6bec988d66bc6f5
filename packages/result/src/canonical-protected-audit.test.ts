import type { ProtectedAudit, ToolContract } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeCanonicalProtectedAudit } from './canonical-protected-audit.js';

// Strings with every escape JSON has, astral characters and lone surrogates (which both sides refuse).
const tricky = fc.constantFrom('"', '\\', '\n', '\u0001', '\u001f', '\u007f', '\u2028', 'é', '😀', '\ud800', '-', 'a', '~', '/');
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: tricky, maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }));
const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const contract = fc.record({
  tool_name: text,
  effect: fc.constantFrom('read', 'write'),
  input_revision: text,
  output_revision: text,
  effect_revision: text,
  handler_revision: text,
  producer_revision: text,
  policy_revision: text,
}) as fc.Arbitrary<ToolContract>;
const audit = fc.record({
  schema_version: fc.constantFrom('tool-protected-audit-v1'),
  principal_ref: fc.oneof(hex, text),
  provider_context: fc.record({ provider: text, api_family: text, response_id: text, call_id: text, adapter_revision: text }),
  tool_contract: contract,
  downstream: fc.record({
    operation_id: text,
    idempotency_key: fc.option(text, { nil: null }),
    receipt: fc.option(text, { nil: null }),
    status_ref: fc.option(text, { nil: null }),
  }),
  binding: fc.record({ request_sha256: hex, result_sha256: fc.oneof(hex, text), call_binding_sha256: hex }),
  redactions: fc.array(fc.record({ path: text, reason: text }), { maxLength: 3 }),
}) as fc.Arbitrary<ProtectedAudit>;

const outcome = (run: () => string): string => {
  try {
    return run();
  } catch (error) {
    return `throws ${(error as Error).name}: ${(error as Error).message}`;
  }
};

describe('composeCanonicalProtectedAudit', () => {
  it('equals canonicalize of the projection, and throws where it throws (property)', () => {
    fc.assert(
      fc.property(audit, (value) => {
        const frozenContract = Object.freeze({ ...value.tool_contract });
        expect(outcome(() => composeCanonicalProtectedAudit(value, frozenContract))).toBe(outcome(() => canonicalize(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes the projection, not the registry contract, when the two differ', () => {
    fc.assert(
      fc.property(audit, contract, (value, other) => {
        expect(outcome(() => composeCanonicalProtectedAudit(value, Object.freeze(other)))).toBe(outcome(() => canonicalize(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the contract text per frozen contract, and never for a mutable one', () => {
    const base: ProtectedAudit = {
      schema_version: 'tool-protected-audit-v1',
      principal_ref: 'a'.repeat(64),
      provider_context: { provider: 'openai', api_family: 'responses', response_id: 'resp_1', call_id: 'call "1"', adapter_revision: 'openai-responses-v1' },
      tool_contract: {
        tool_name: 'get_order',
        effect: 'read',
        input_revision: 'in-1',
        output_revision: 'out-1',
        effect_revision: 'eff-1',
        handler_revision: 'h-1',
        producer_revision: 'p-1',
        policy_revision: 'pol-1',
      },
      downstream: { operation_id: 'op-1', idempotency_key: null, receipt: 'rcpt\n1', status_ref: null },
      binding: { request_sha256: 'b'.repeat(64), result_sha256: 'c'.repeat(64), call_binding_sha256: 'd'.repeat(64) },
      redactions: [{ path: '/data/x', reason: 'pii' }],
    };
    const mutable = { ...base.tool_contract };
    const first = composeCanonicalProtectedAudit({ ...base, tool_contract: { ...mutable } }, mutable);
    mutable.policy_revision = `${mutable.policy_revision}-changed`;
    const second = composeCanonicalProtectedAudit({ ...base, tool_contract: { ...mutable } }, mutable);
    expect(first).toBe(canonicalize({ ...base, tool_contract: { ...base.tool_contract } }));
    expect(second).toBe(canonicalize({ ...base, tool_contract: mutable }));
  });
});
