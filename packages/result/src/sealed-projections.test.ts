import type { CallContext, PrincipalContext, SealedResult, ToolCall } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { createResultVerifier } from './create-result-verifier.js';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult, type TrustedContext } from './verify-result.js';

// `sealResult` freezes both projections. A verifier whose trusted record keeps what `sealResult`
// returned (`TrustedContext.sealed`) hashes the text returned with them and validates the frozen
// objects, instead of canonicalizing and parsing a copy. These tests show the shortcut is taken
// only for those very objects, and gives the verdicts of the full path.

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder]);
const digester = createDigester();
const principal: PrincipalContext = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };
const call: CallContext = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_1',
  call_id: 'call_1',
  adapter_revision: 'openai-responses-v1',
  operation_id: 'op-1',
  idempotency_key: null,
};
const toolCall: ToolCall = {
  provider: 'openai',
  api_family: 'responses',
  adapter_revision: 'openai-responses-v1',
  response_id: 'resp_1',
  call_id: 'call_1',
  tool_name: 'get_order',
  arguments: { format: 'json_text', text: '{"order_id":"ORDER-C7"}' },
};
const plainTrusted: TrustedContext = { registry, tool_name: 'get_order', principal, call, arguments: { order_id: 'ORDER-C7' }, digester };
const output = {
  data: { order_ref: 'ORDER-C7', status: 'paid', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }] },
  resource_revision: 'order-c7-r3',
  observed_at: '2026-07-19T00:00:00Z',
};

function seal(overrides: Partial<SealResultInput> = {}) {
  return sealResult({
    registry,
    tool_name: 'get_order',
    principal,
    call,
    arguments: { order_id: 'ORDER-C7' },
    subject: { kind: 'data', output },
    execution: { delivery: 'fresh' },
    now: () => '2026-07-19T00:00:01Z',
    digester,
    ...overrides,
  });
}

/** Every object and array under `value`, the root included. */
function containers(value: unknown): object[] {
  if (typeof value !== 'object' || value === null) return [];
  return [value, ...Object.values(value).flatMap(containers)];
}

/** A sealed package with the trusted record that keeps it, and a verifier over that record. */
function sealWithRecord(overrides: Partial<SealResultInput> = {}) {
  const output = seal(overrides);
  const trusted: TrustedContext = { ...plainTrusted, sealed: output };
  const verify = createResultVerifier((candidate) => (candidate.call_id === 'call_1' ? trusted : undefined));
  return { ...output, trusted, verify };
}

describe('sealed projections', () => {
  it('are frozen at every level, and the handler output is not', () => {
    const { sealed } = seal();
    const all = [...containers(sealed.model_result), ...containers(sealed.protected_audit)];
    expect(all.length).toBeGreaterThan(10);
    expect(all.every((container) => Object.isFrozen(container))).toBe(true);
    expect(Object.isFrozen(output.data)).toBe(false);
    expect(Object.isFrozen(output.data.lines[0])).toBe(false);
    // The host's redactions and the seal's own, and a refused output's error.
    const redactions = [{ path: '/data/note', reason: 'pii' }];
    const refused = seal({ redactions, subject: { kind: 'data', output: { ...output, extra: true } } }).sealed;
    expect(refused.protected_audit.redactions).toHaveLength(2);
    const refusedAll = [...containers(refused.model_result), ...containers(refused.protected_audit)];
    expect(refusedAll.every((container) => Object.isFrozen(container))).toBe(true);
    expect(Object.isFrozen(redactions[0])).toBe(false);
    // An error subject's references are checked as a handler's are (review 1): one of another
    // type is refused, never sealed; a sealed one is a string, frozen with the rest.
    expect(() => seal({ subject: { kind: 'error', code: 'NOT_FOUND', receipt: { nested: ['x'] } as unknown as string } })).toThrow(TypeError);
    const withReceipt = seal({ subject: { kind: 'error', code: 'NOT_FOUND', receipt: 'rcpt-1', status_ref: 'ref-1' } }).sealed;
    expect([...containers(withReceipt.model_result), ...containers(withReceipt.protected_audit)].every((container) => Object.isFrozen(container))).toBe(true);
    expect(() => {
      (sealed.model_result.data as { status: string }).status = 'refunded';
    }).toThrow(TypeError);
  });

  it('an error result is frozen too, without freezing the caller reasons', () => {
    const reasons = [{ field: '/order_id', rule: 'pattern' }];
    const { sealed } = seal({ subject: { kind: 'error', code: 'INVALID_ARGUMENTS', reasons } });
    expect(containers(sealed.model_result).every((container) => Object.isFrozen(container))).toBe(true);
    expect(Object.isFrozen(reasons[0])).toBe(false);
  });
});

describe('canonicalTextOf', () => {
  it('gives the text sealResult returned only for the very projections of the record', () => {
    const { sealed, canonical_model_result, verify } = sealWithRecord();
    expect(canonical_model_result).toBe(canonicalize(sealed.model_result));
    expect(verify.canonicalTextOf?.(sealed, toolCall)).toBe(canonical_model_result);
    expect(verify.canonicalTextOf?.({ ...sealed }, toolCall)).toBe(canonical_model_result);
    expect(verify.canonicalTextOf?.(copy(sealed), toolCall)).toBeUndefined();
    expect(verify.canonicalTextOf?.({ ...sealed, model_result: copy(sealed.model_result) }, toolCall)).toBeUndefined();
    expect(verify.canonicalTextOf?.({ ...sealed, protected_audit: copy(sealed.protected_audit) }, toolCall)).toBeUndefined();
    expect(verify.canonicalTextOf?.(sealed, { ...toolCall, call_id: 'call_2' })).toBeUndefined();
    expect(verify.canonicalTextOf?.(null as unknown as SealedResult, toolCall)).toBeUndefined();
  });

  it('gives nothing without a kept output, or for projections that are not frozen', () => {
    const { sealed } = seal();
    const bare = createResultVerifier(() => plainTrusted);
    expect(bare.canonicalTextOf?.(sealed, toolCall)).toBeUndefined();
    const unfrozen = copy(sealed);
    const claimed = createResultVerifier(() => ({ ...plainTrusted, sealed: { sealed: unfrozen, canonical_model_result: canonicalize(unfrozen.model_result) } }));
    expect(claimed.canonicalTextOf?.(unfrozen, toolCall)).toBeUndefined();
  });
});

describe('verifying the package the record keeps', () => {
  it('passes with and without the text', () => {
    const { sealed, canonical_model_result, trusted, verify } = sealWithRecord();
    expect(verifyResult(sealed, trusted)).toEqual({ ok: true });
    expect(verifyResult(sealed, trusted, { canonical_model_result })).toEqual({ ok: true });
    expect(verify(sealed, toolCall, { canonical_model_result })).toEqual({ ok: true });
  });

  it('hashes the text it is given: another text fails the result digest', () => {
    const { sealed, canonical_model_result, trusted } = sealWithRecord();
    const other = canonical_model_result.replace('"paid"', '"refunded"');
    expect(other).not.toBe(canonical_model_result);
    expect(verifyResult(sealed, trusted, { canonical_model_result: other })).toEqual({
      ok: false,
      reasons: ['result_digest', 'call_binding'],
    });
  });

  it('still checks the frozen projections against the rest of the trusted record', () => {
    const { sealed, trusted } = sealWithRecord();
    expect(verifyResult(sealed, { ...trusted, call: { ...call, call_id: 'call_2' } })).toEqual({
      ok: false,
      reasons: ['provider_context', 'call_binding'],
    });
    expect(verifyResult(sealed, { ...trusted, arguments: { order_id: 'ORDER-C8' } }).ok).toBe(false);
  });

  it('takes the full path for a swapped pair, an extra member or an accessor', () => {
    const { sealed: first, trusted } = sealWithRecord();
    const second = seal({ call: { ...call, call_id: 'call_2', operation_id: 'op-2' } }).sealed;
    const swapped: SealedResult = { model_result: first.model_result, protected_audit: second.protected_audit };
    expect(verifyResult(swapped, trusted)).toEqual({ ok: false, reasons: ['provider_context', 'downstream', 'call_binding'] });
    const extra = { ...first, note: 'x' } as unknown as SealedResult;
    expect(verifyResult(extra, trusted)).toEqual({ ok: false, reasons: ['malformed_package'] });
    const symbolic = Object.assign({ ...first }, { [Symbol('x')]: 1 });
    expect(verifyResult(symbolic, trusted)).toEqual({ ok: false, reasons: ['malformed_package'] });
    const withGetter = Object.defineProperty({ protected_audit: first.protected_audit }, 'model_result', {
      get: () => first.model_result,
      enumerable: true,
    }) as SealedResult;
    expect(verifyResult(withGetter, trusted)).toEqual({ ok: false, reasons: ['malformed_package'] });
  });

  it('gives the verdict of the full path for a copy, and for the package without the record', () => {
    const { sealed, trusted } = sealWithRecord();
    expect(verifyResult(copy(sealed), trusted)).toEqual(verifyResult(sealed, trusted));
    expect(verifyResult(sealed, plainTrusted)).toEqual(verifyResult(sealed, trusted));
    const refusal = seal({ subject: { kind: 'data', output: { ...output, data: { ...output.data, token: 'x' } } } });
    const refusalTrusted = { ...plainTrusted, sealed: refusal };
    expect(refusal.sealed.model_result.status).toBe('failed');
    expect(verifyResult(refusal.sealed, refusalTrusted)).toEqual({ ok: true });
    expect(verifyResult(copy(refusal.sealed), refusalTrusted)).toEqual({ ok: true });
  });
});
