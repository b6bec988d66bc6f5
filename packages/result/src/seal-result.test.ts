import type { CallContext, PrincipalContext, Redaction } from '@toolseal/contracts';
import { canonicalize, createDigester, rememberCanonicalText } from '@toolseal/digests';
import { ERROR_CATALOG, ERROR_CODES } from '@toolseal/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry, UNREGISTERED_TOOL_NAME } from './tool-registry.js';
import { verifyResult } from './verify-result.js';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
const digester = createDigester();
const principal: PrincipalContext = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: ['support_drafter'] };
const call: CallContext = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_001',
  call_id: 'call_001',
  adapter_revision: 'openai-responses-v1',
  operation_id: 'op-001',
  idempotency_key: null,
};
const keyedCall: CallContext = { ...call, idempotency_key: 'idem-001' };
const orderOutput = {
  data: { order_ref: 'ORDER-C7', status: 'paid', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }] },
  resource_revision: 'order-c7-r3',
  observed_at: '2026-07-19T00:00:00Z',
  receipt: 'orders-read-881',
};
const proposal = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
const draftCall: CallContext = { ...call, call_id: 'call_002', operation_id: 'op-002', idempotency_key: 'idem-refund-c7-1' };

function orderInput(overrides: Partial<SealResultInput> = {}): SealResultInput {
  return {
    registry,
    tool_name: 'get_order',
    principal,
    call,
    arguments: { order_id: 'ORDER-C7' },
    subject: { kind: 'data', output: copy(orderOutput) },
    execution: { delivery: 'fresh' },
    now: () => '2026-07-19T00:00:01Z',
    digester,
    ...overrides,
  };
}

describe('sealResult canonical texts', () => {
  it('returns the RFC 8785 text of both projections, on every path', () => {
    const inputs: SealResultInput[] = [
      orderInput(),
      orderInput({ subject: { kind: 'error', code: 'NOT_FOUND' } }),
      orderInput({ subject: { kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 1000 } }),
      orderInput({ subject: { kind: 'data', output: { ...copy(orderOutput), data: { ...orderOutput.data, api_key: 'x' } } } }),
      orderInput({ tool_name: 'send_email' }),
      orderInput({ call: { ...call, call_id: 'call "quoted" \\ \u2028 😀', idempotency_key: 'key\n1' } }),
      orderInput({ redactions: [{ path: '/data/note', reason: 'pii' }] }),
    ];
    for (const input of inputs) {
      const { sealed, canonical_model_result, canonical_protected_audit } = sealResult(input);
      expect(canonical_model_result).toBe(canonicalize(sealed.model_result));
      expect(canonical_protected_audit).toBe(canonicalize(sealed.protected_audit));
      // Remembered for an audit log's entry body: the same text, and the same depth (a tight
      // maxDepth gives the walk's outcome, text or max_depth failure, on both paths).
      const body = { gate: 'sealed', protected_audit: sealed.protected_audit };
      expect(canonicalize(body, { reuseRemembered: true })).toBe(canonicalize(body));
      for (const maxDepth of [2, 3, 4]) {
        expect(outcomeOf(() => canonicalize(body, { maxDepth, reuseRemembered: true }))).toEqual(outcomeOf(() => canonicalize(body, { maxDepth })));
      }
    }
  });

  it('seals no receipt of another type (a misused error subject): the protected projection always has the known shape (review 1)', () => {
    // Sealed before, and walked on every audit append; its own verification called it malformed.
    const receipt = Object.freeze({ inner: { n: 1 } }) as unknown as string;
    expect(() => sealResult(orderInput({ subject: { kind: 'error', code: 'NOT_FOUND', receipt } }))).toThrow(/^sealResult: subject\.receipt must be null or a string/);
  });

  it('keeps a text remembered first by code holding the projection, and still answers its own', () => {
    const output = sealResult(orderInput());
    rememberCanonicalText(output.sealed.protected_audit, '{"remembered":"first"}', 1);
    expect(output.canonical_protected_audit).toBe(canonicalize(output.sealed.protected_audit));
    expect(canonicalize({ p: output.sealed.protected_audit }, { reuseRemembered: true })).toBe('{"p":{"remembered":"first"}}');
  });

  it('remembers nothing for a contract member that is not a string (a registry other than createToolRegistry)', () => {
    const nested = { v: 'r1' };
    const unregisteredContract = Object.freeze({ ...registry.unregisteredContract, policy_revision: nested as unknown as string });
    const wrapper: typeof registry = Object.freeze({ ...registry, get: (name: string) => registry.get(name), unregisteredContract });
    const output = sealResult(orderInput({ registry: wrapper, tool_name: 'send_email' }));
    expect(output.canonical_protected_audit).toBe(canonicalize(output.sealed.protected_audit));
    nested.v = 'r2';
    const body = { protected_audit: output.sealed.protected_audit };
    expect(canonicalize(body, { reuseRemembered: true })).toContain('"policy_revision":{"v":"r2"}');
    expect(outcomeOf(() => canonicalize(body, { maxDepth: 3, reuseRemembered: true }))).toEqual(outcomeOf(() => canonicalize(body, { maxDepth: 3 })));
  });

  it('never composes the contract text from a second read of a registry contract whose member is an accessor', () => {
    // Every read count at which the accessor could start answering another value.
    for (let flipAt = 1; flipAt <= 12; flipAt++) {
      let reads = 0;
      const base = registry.unregisteredContract;
      const contract = { ...base } as Record<string, unknown>;
      delete contract['policy_revision'];
      Object.defineProperty(contract, 'policy_revision', {
        enumerable: true,
        get: () => ((reads += 1) >= flipAt ? 'policy-swapped' : base.policy_revision),
      });
      const wrapper: typeof registry = Object.freeze({ ...registry, get: (name: string) => registry.get(name), unregisteredContract: Object.freeze(contract) as typeof base });
      const output = sealResult(orderInput({ registry: wrapper, tool_name: 'send_email' }));
      const { protected_audit } = output.sealed;
      expect(output.canonical_protected_audit, `flip at read ${flipAt}`).toBe(canonicalize(protected_audit));
      const body = { protected_audit };
      expect(canonicalize(body, { reuseRemembered: true }), `flip at read ${flipAt}`).toBe(canonicalize(body));
    }
  });

  it('freezes the output and its sealed pair, so no projection can be put in place of the one it composes for', () => {
    const output = sealResult(orderInput());
    expect(Object.isFrozen(output)).toBe(true);
    expect(Object.isFrozen(output.sealed)).toBe(true);
    const { protected_audit } = output.sealed;
    const swapped = Object.freeze({ ...protected_audit, binding: { ...protected_audit.binding } });
    expect(() => {
      (output as { sealed: unknown }).sealed = { model_result: output.sealed.model_result, protected_audit: swapped };
    }).toThrow(TypeError);
    expect(() => {
      (output.sealed as { protected_audit: unknown }).protected_audit = swapped;
    }).toThrow(TypeError);
    expect(output.sealed.protected_audit).toBe(protected_audit);
    expect(output.canonical_protected_audit).toBe(canonicalize(protected_audit));
  });

  it('composes the protected text when it is first read, then gives the same string', () => {
    const output = sealResult(orderInput());
    // Not an own member: nothing was composed while sealing (a read call never stores it).
    expect(Object.hasOwn(output, 'canonical_protected_audit')).toBe(false);
    const first = output.canonical_protected_audit;
    expect(first).toBe(canonicalize(output.sealed.protected_audit));
    expect(output.canonical_protected_audit).toBe(first);
    expect(Object.keys(output).sort()).toEqual(['canonical_model_result', 'sealed', 'violations']);
  });

  it('throws a TypeError naming the field for an error receipt or status_ref with a lone surrogate (review 1: sealed before, with no protected text)', () => {
    const lone = `R-${String.fromCharCode(0xd800)}`;
    for (const field of ['receipt', 'status_ref'] as const) {
      expect(() => sealResult(orderInput({ subject: { kind: 'error', code: 'NOT_FOUND', [field]: lone } }))).toThrow(
        new RegExp(`^sealResult: subject\\.${field} holds a lone surrogate`),
      );
    }
  });
});

describe('sealResult', () => {
  it('seals an output reporting the registered producer_revision as usual, and refuses one of another revision (spec 000)', () => {
    const reported = sealResult(orderInput({ subject: { kind: 'data', output: { ...copy(orderOutput), producer_revision: 'orders-mock-v2' } } }));
    expect(reported.violations).toEqual([]);
    expect(reported.canonical_model_result).toBe(sealResult(orderInput()).canonical_model_result);
    expect(verifyResult(reported.sealed, orderInput())).toEqual({ ok: true });
    const other = sealResult(orderInput({ subject: { kind: 'data', output: { ...copy(orderOutput), producer_revision: 'orders-mock-v3' } } }));
    expect(other.violations).toEqual([{ rule: 'producer_revision', path: '/producer_revision' }]);
    expect(other.sealed.model_result.status).toBe('failed');
    expect(other.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    // An error result names the control plane as its producer, never the revision the handler claimed.
    expect(other.sealed.model_result.provenance.producer_revision).toBe('toolseal-control-v1');
    expect(other.canonical_model_result).not.toContain('orders-mock-v3');
  });

  it('seals a get_order success shaped like the spec example (readme-example.test.ts seals the example itself): business data.status inside data only', () => {
    const { sealed, canonical_model_result, violations } = sealResult(orderInput());
    expect(violations).toEqual([]);
    expect(sealed.model_result).toEqual({
      schema_version: 'tool-model-result-v2',
      status: 'succeeded',
      data: { order_ref: 'ORDER-C7', status: 'paid', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }] },
      error: null,
      execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
      provenance: {
        source_label: 'orders',
        producer_revision: 'orders-mock-v2',
        resource_revision: 'order-c7-r3',
        observed_at: '2026-07-19T00:00:00Z',
        trust: 'untrusted_data',
      },
    });
    expect(canonical_model_result).toBe(canonicalize(sealed.model_result));
    const audit = sealed.protected_audit;
    expect(audit.schema_version).toBe('tool-protected-audit-v1');
    expect(audit.principal_ref).toBe(digester.principalRef(principal));
    expect(audit.provider_context).toEqual({ provider: 'openai', api_family: 'responses', response_id: 'resp_001', call_id: 'call_001', adapter_revision: 'openai-responses-v1' });
    expect(audit.tool_contract).toEqual(specs.getOrder.contract);
    expect(audit.downstream).toEqual({ operation_id: 'op-001', idempotency_key: null, receipt: 'orders-read-881', status_ref: null });
    expect(audit.redactions).toEqual([]);
    expect(audit.binding.result_sha256).toBe(digester.resultDigest(sealed.model_result));
    expect(audit.binding.request_sha256).toBe(
      digester.requestDigest({
        tenant_id: 'tenant-cedar',
        subject_id: 'drafter-1',
        tool_name: 'get_order',
        arguments: { order_id: 'ORDER-C7' },
        input_revision: 'get-order-input-v1',
        output_revision: 'get-order-output-v1',
        effect_revision: 'get-order-effect-v1',
      }),
    );
    expect(audit.binding.call_binding_sha256).toBe(
      digester.callBindingDigest({
        provider: 'openai',
        api_family: 'responses',
        response_id: 'resp_001',
        call_id: 'call_001',
        operation_id: 'op-001',
        idempotency_key: null,
        adapter_revision: 'openai-responses-v1',
        tool_contract: specs.getOrder.contract,
        request_sha256: audit.binding.request_sha256,
        result_sha256: audit.binding.result_sha256,
      }),
    );
    expect(Object.values(audit.binding).every((digest) => /^[0-9a-f]{64}$/.test(digest))).toBe(true);
  });

  it('takes source_label and producer_revision from the registry, never from the handler', () => {
    const { sealed } = sealResult(orderInput());
    expect(sealed.model_result.provenance.source_label).toBe(specs.getOrder.source_label);
    expect(sealed.model_result.provenance.producer_revision).toBe(specs.getOrder.contract.producer_revision);
    const forged = sealResult(orderInput({ subject: { kind: 'data', output: { ...copy(orderOutput), source_label: 'trusted_system', producer_revision: 'x' } } }));
    expect(forged.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
  });

  it('keeps no reference to the handler output: later changes by the handler do not reach the package', () => {
    const output = copy(orderOutput);
    const { sealed } = sealResult(orderInput({ subject: { kind: 'data', output } }));
    output.data.status = 'refunded';
    output.data.lines[0]!.quantity = 9;
    expect(sealed.model_result.data).toMatchObject({ status: 'paid', lines: [{ quantity: 1 }] });
  });

  it('validates exactly what it seals, even when the handler object answers differently on each read', () => {
    const target = copy(orderOutput.data);
    let reads = 0;
    const shifty = new Proxy(target, {
      get: (object, key, receiver) => (key === 'status' && ++reads > 1 ? 'shipped' : Reflect.get(object, key, receiver)),
      getOwnPropertyDescriptor: (object, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
        return key === 'status' && descriptor !== undefined && ++reads > 1 ? { ...descriptor, value: 'shipped' } : descriptor;
      },
    });
    const { sealed } = sealResult(orderInput({ subject: { kind: 'data', output: { ...copy(orderOutput), data: shifty } } }));
    if (sealed.model_result.status === 'succeeded') {
      expect(['paid', 'pending', 'refunded']).toContain((sealed.model_result.data as { status: string }).status);
    } else {
      expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    }
    expect(reads).toBeGreaterThan(0);
    expect(verifyResult(sealed, { registry, tool_name: 'get_order', principal, call, arguments: { order_id: 'ORDER-C7' }, digester })).toEqual({ ok: true });
  });

  it('refuses, without throwing, a handler output whose proxy traps throw', () => {
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('boom'); }, getPrototypeOf: () => Object.prototype });
    const { sealed, violations } = sealResult(orderInput({ subject: { kind: 'data', output: hostile } }));
    expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(violations).toEqual([{ rule: 'non_json_value', path: '' }]);
    const trusted = { registry, tool_name: 'get_order', principal, call, arguments: { order_id: 'ORDER-C7' }, digester };
    expect(verifyResult(hostile, trusted)).toEqual({ ok: false, reasons: ['malformed_package'] });
  });

  it('reports a refused output without the undeclared keys it holds: no subject id, no credential-shaped name (review 4, L4)', () => {
    // The review's reproduction: a downstream row passed through, two of its columns (named after
    // the principal and after a Stripe key) holding values JSON has no form for.
    const alice: PrincipalContext = { tenant_id: 'tenant-cedar', subject_id: 'alice_smith_42', roles: ['support_drafter'] };
    const outputs: unknown[] = [
      { ...copy(orderOutput), data: { ...orderOutput.data, alice_smith_42: undefined } },
      { ...copy(orderOutput), data: { ...orderOutput.data, sk_live_4eC39HqLyjWDarjtT1zdp7dc: () => 1 } },
    ];
    for (const output of outputs) {
      const { sealed, violations } = sealResult(orderInput({ principal: alice, subject: { kind: 'data', output } }));
      expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
      expect(violations).toEqual([{ rule: 'non_json_value', path: '/data' }]);
    }
  });

  it('turns the refund-draft handler returning {"status":"succeeded"} into OUTPUT_CONTRACT_VIOLATION', () => {
    const draft = { draft_ref: 'DRAFT-C7-1', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' };
    const input = orderInput({
      tool_name: 'create_refund_draft',
      call: draftCall,
      arguments: proposal,
      subject: { kind: 'data', output: { data: { ...draft, status: 'succeeded' }, resource_revision: 'draft-c7-1-r1', observed_at: '2026-07-19T00:00:00Z', receipt: 'refunds-draft-77' } },
      execution: { delivery: 'fresh', outcome: 'committed' },
    });
    const { sealed, violations } = sealResult(input);
    expect(violations).toEqual([{ rule: 'additional_properties', path: '/data' }]);
    const entry = ERROR_CATALOG.OUTPUT_CONTRACT_VIOLATION;
    expect(sealed.model_result).toEqual({
      schema_version: 'tool-model-result-v2',
      status: entry.status,
      data: null,
      error: { code: 'OUTPUT_CONTRACT_VIOLATION', category: entry.category, safe_message: entry.safe_message, recovery: 'human_review', retry_after_ms: null, reasons: [] },
      execution: { outcome: entry.outcome, delivery: 'fresh', complete: true, truncated: false },
      provenance: { source_label: 'toolseal', producer_revision: 'toolseal-control-v1', resource_revision: null, observed_at: '2026-07-19T00:00:01Z', trust: 'trusted_control' },
    });
    // The write may have happened: the receipt stays in the protected audit for reconciliation.
    expect(sealed.protected_audit.downstream.receipt).toBe('refunds-draft-77');
    expect(sealed.protected_audit.redactions).toEqual([{ path: '', reason: 'output_contract_violation' }]);
    // Nothing of the refused output reaches the model projection.
    const text = JSON.stringify(sealed.model_result);
    for (const leaked of ['DRAFT-C7-1', 'succeeded', 'refunds-draft-77', 'draft-c7-1-r1']) expect(text).not.toContain(leaked);
    expect(verifyResult(sealed, { registry, tool_name: 'create_refund_draft', principal, call: draftCall, arguments: proposal, digester })).toEqual({ ok: true });
  });

  it('seals a valid refund draft: no status field, echoes bound, idempotency key in the audit only', () => {
    const draft = { draft_ref: 'DRAFT-C7-1', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' };
    const { sealed, violations } = sealResult(
      orderInput({
        tool_name: 'create_refund_draft',
        call: draftCall,
        arguments: proposal,
        subject: { kind: 'data', output: { data: draft, resource_revision: 'draft-c7-1-r1', observed_at: '2026-07-19T00:00:00Z', receipt: 'refunds-draft-77' } },
      }),
    );
    expect(violations).toEqual([]);
    expect(sealed.model_result.status).toBe('succeeded');
    expect(sealed.model_result.data).toEqual(draft);
    expect(sealed.protected_audit.downstream).toEqual({ operation_id: 'op-002', idempotency_key: 'idem-refund-c7-1', receipt: 'refunds-draft-77', status_ref: null });
    expect(JSON.stringify(sealed.model_result)).not.toContain('idem-refund-c7-1');
  });

  describe('refuses data that carries a protected value of the call (protected_value)', () => {
    // Spec 000: "Tenant, subject, operation ID, downstream receipt, and request digest are
    // deliberately absent" from the model projection. The security review's handler copied the
    // principal's tenant and its own receipt into free text.
    const hit = { title: 'Refund help', snippet: 'How refunds work.', source: 'https://kb.example.com/a/1', revision: 'a1.r1' };
    const searchInput = (snippet: string, extra: object = {}, overrides: Partial<SealResultInput> = {}) =>
      orderInput({
        tool_name: 'kb_search',
        arguments: { query: 'refund' },
        subject: {
          kind: 'data',
          output: { data: { hits: [hit, { ...hit, snippet }] }, resource_revision: 'kb-index-r42', observed_at: '2026-07-19T00:00:00Z', ...extra },
        },
        ...overrides,
      });

    it.each([
      ['the tenant id', 'Ask about {"tenant_id":"tenant-cedar"}'],
      ['the subject id, in another case', 'Written by DRAFTER-1.'],
      ['the operation id', 'trace op-001-long'],
      ['the receipt of the same output', 'receipt rcpt-internal-5', { receipt: 'rcpt-internal-5' }],
      ['the status reference of the same output', 'ref status-ref-99', { status_ref: 'status-ref-99' }],
      ['the idempotency key', 'key idem-refund-c7-1', {}, { call: draftCall }],
    ] as const)('%s', (_label, snippet, extra: object = {}, overrides: Partial<SealResultInput> = {}) => {
      const input = searchInput(snippet, extra, { call: { ...call, operation_id: 'op-001-long' }, ...overrides });
      const { sealed, violations } = sealResult(input);
      expect(violations).toEqual([{ rule: 'protected_value', path: '/data/hits/1/snippet' }]);
      expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
      expect(sealed.model_result.data).toBeNull();
      expect(canonicalize(sealed.model_result)).not.toContain(snippet.split(' ').at(-1)?.slice(0, 8));
    });

    it('the request digest and the principal reference of the call, which a status query is handed', () => {
      const clean = sealResult(searchInput('How refunds work.')).sealed.protected_audit;
      for (const leaked of [clean.binding.request_sha256, clean.principal_ref.toUpperCase()]) {
        const { sealed, violations } = sealResult(searchInput(`downstream ref ${leaked}`));
        expect(violations).toEqual([{ rule: 'protected_value', path: '/data/hits/1/snippet' }]);
        expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
        // The package still binds the same request and principal.
        expect(sealed.protected_audit.binding.request_sha256).toBe(clean.binding.request_sha256);
        expect(sealed.protected_audit.principal_ref).toBe(clean.principal_ref);
      }
    });

    it(`leaves values shorter than six characters alone (a tenant "cedar" is an ordinary word)`, () => {
      const short = { tenant_id: 'cedar', subject_id: 'u1', roles: [] };
      const { violations } = sealResult(searchInput('Cedar wood, user u1.', {}, { principal: short }));
      expect(violations).toEqual([]);
    });

    it('checks string values only: key names are fixed by the exact schema and never searched', () => {
      const { violations } = sealResult(orderInput({ principal: { tenant_id: 'order_ref', subject_id: 'line_id', roles: [] } }));
      expect(violations).toEqual([]);
      // An echoed value is a string like any other (here also inside the output's resource
      // revision, the one handler string outside `data` the model sees).
      const echoed = sealResult(orderInput({ principal: { tenant_id: 'ORDER-C7', subject_id: 'drafter-1', roles: [] } }));
      expect(echoed.violations).toEqual([
        { rule: 'protected_value', path: '/data/order_ref' },
        { rule: 'protected_value', path: '/resource_revision' },
      ]);
    });
  });

  it('builds every catalogued error from the catalog, with trusted_control provenance', () => {
    for (const code of ERROR_CODES) {
      const entry = ERROR_CATALOG[code];
      const retryAfterMs = entry.retry_after.policy === 'required' ? entry.retry_after.min_ms : undefined;
      const reasons = entry.reason_rules.length > 0 ? [{ field: '/order_id', rule: entry.reason_rules[0] as string }] : undefined;
      const { sealed, violations } = sealResult(
        orderInput({
          call: keyedCall,
          subject: { kind: 'error', code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }), ...(reasons === undefined ? {} : { reasons }) },
          execution: { delivery: 'local_replay' },
        }),
      );
      expect(violations).toEqual([]);
      const result = sealed.model_result;
      expect(result.status).toBe(entry.status);
      expect(result.execution).toEqual({ outcome: entry.outcome, delivery: 'local_replay', complete: true, truncated: false });
      expect(result.data).toBeNull();
      expect(result.error).toEqual({ code, category: entry.category, safe_message: entry.safe_message, recovery: entry.recovery, retry_after_ms: retryAfterMs ?? null, reasons: reasons ?? [] });
      expect(result.provenance).toEqual({ source_label: 'toolseal', producer_revision: 'toolseal-control-v1', resource_revision: null, observed_at: '2026-07-19T00:00:01Z', trust: 'trusted_control' });
      expect(verifyResult(sealed, { registry, tool_name: 'get_order', principal, call: keyedCall, arguments: { order_id: 'ORDER-C7' }, digester })).toEqual({ ok: true });
    }
  });

  it('uses the host control identity for errors', () => {
    const hosted = createToolRegistry([specs.getOrder], { control: { source_label: 'host-a', producer_revision: 'dispatcher-9' } });
    const { sealed } = sealResult(orderInput({ registry: hosted, subject: { kind: 'error', code: 'NOT_FOUND' } }));
    expect(sealed.model_result.provenance).toMatchObject({ source_label: 'host-a', producer_revision: 'dispatcher-9' });
  });

  it('seals a call to an unregistered tool as UNKNOWN_TOOL under the reserved contract, whatever the subject', () => {
    const { sealed } = sealResult(orderInput({ tool_name: 'send_email', arguments: null }));
    expect(sealed.model_result.error?.code).toBe('UNKNOWN_TOOL');
    expect(sealed.model_result.execution.outcome).toBe('not_started');
    expect(sealed.protected_audit.tool_contract).toEqual(registry.unregisteredContract);
    expect(sealed.protected_audit.tool_contract.tool_name).toBe(UNREGISTERED_TOOL_NAME);
    expect(verifyResult(sealed, { registry, tool_name: 'send_email', principal, call, arguments: null, digester })).toEqual({ ok: true });
  });

  it('keeps error receipts and status references in the protected audit only', () => {
    const { sealed } = sealResult(orderInput({ subject: { kind: 'error', code: 'OUTCOME_UNKNOWN', status_ref: 'status-q-991', receipt: 'rcpt-991' } }));
    expect(sealed.protected_audit.downstream).toMatchObject({ receipt: 'rcpt-991', status_ref: 'status-q-991' });
    expect(JSON.stringify(sealed.model_result)).not.toMatch(/991/);
  });

  it('records host redactions', () => {
    const redactions = [{ path: '/data/lines/0/note', reason: 'sensitive_key' }];
    const { sealed } = sealResult(orderInput({ redactions }));
    expect(sealed.protected_audit.redactions).toEqual(redactions);
  });

  it('uses a Date clock as toISOString', () => {
    const { sealed } = sealResult(orderInput({ subject: { kind: 'error', code: 'NOT_FOUND' }, now: () => new Date(Date.UTC(2026, 6, 19, 1, 2, 3, 4)) }));
    expect(sealed.model_result.provenance.observed_at).toBe('2026-07-19T01:02:03.004Z');
  });

  it('refuses a replay or a reconciliation for a call without an idempotency key (spec 000: they answer a keyed call)', () => {
    for (const delivery of ['local_replay', 'receipt_reconciled'] as const) {
      expect(() => sealResult(orderInput({ execution: { delivery } }))).toThrow(/needs call\.idempotency_key/);
      expect(() => sealResult(orderInput({ subject: { kind: 'error', code: 'NOT_FOUND' }, execution: { delivery } }))).toThrow(TypeError);
      const { sealed } = sealResult(orderInput({ call: keyedCall, execution: { delivery } }));
      expect(sealed.model_result.execution.delivery).toBe(delivery);
    }
  });

  it('seals receipt_reconciled only as a succeeded result holding its receipt (spec 000; review 6, F2)', () => {
    const trusted = { registry, tool_name: 'get_order', principal, call: keyedCall, arguments: { order_id: 'ORDER-C7' }, digester };
    const reconciled = (subject: SealResultInput['subject'], tool_name = 'get_order') =>
      sealResult(orderInput({ tool_name, call: keyedCall, subject, execution: { delivery: 'receipt_reconciled' } }));

    // Data naming its receipt: the reconciliation it says it is.
    const withReceipt = reconciled({ kind: 'data', output: copy(orderOutput) });
    expect(withReceipt.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { outcome: 'committed', delivery: 'receipt_reconciled' } });
    expect(withReceipt.sealed.protected_audit.downstream.receipt).toBe('orders-read-881');
    expect(verifyResult(withReceipt.sealed, trusted)).toEqual({ ok: true });

    // Data naming none reconciled nothing: OUTCOME_UNKNOWN, a new (`fresh`) answer, data withheld.
    // (Sealed before as a succeeded reconciliation without a receipt.)
    const { receipt: _receipt, ...withoutReceipt } = { ...copy(orderOutput), status_ref: 'status-c7' };
    for (const output of [withoutReceipt, { ...withoutReceipt, receipt: null }]) {
      const unreconciled = reconciled({ kind: 'data', output });
      expect(unreconciled.violations).toEqual([]);
      expect(unreconciled.sealed.model_result).toMatchObject({ status: 'unknown', data: null, error: { code: 'OUTCOME_UNKNOWN' } });
      expect(unreconciled.sealed.model_result.execution).toEqual({ outcome: 'unknown', delivery: 'fresh', complete: true, truncated: false });
      expect(unreconciled.sealed.protected_audit.downstream).toMatchObject({ receipt: null, status_ref: 'status-c7' });
      expect(unreconciled.sealed.protected_audit.redactions).toEqual([{ path: '', reason: 'no_downstream_receipt' }]);
      expect(unreconciled.canonical_model_result).not.toContain('ORDER-C7');
      expect(verifyResult(unreconciled.sealed, trusted)).toEqual({ ok: true });
    }

    // Output breaking its contract is refused as ever (what the dispatcher seals before it answers
    // STATUS_CONFLICT), as a new answer: no error's outcome is the commit a receipt confirms.
    for (const output of [withoutReceipt, copy(orderOutput)]) {
      const broken = reconciled({ kind: 'data', output: { ...output, data: { ...orderOutput.data, status: 'succeeded_now' } } });
      expect(broken.violations).toEqual([{ rule: 'enum', path: '/data/status' }]);
      expect(broken.sealed.model_result).toMatchObject({ error: { code: 'OUTPUT_CONTRACT_VIOLATION' }, execution: { outcome: 'unknown', delivery: 'fresh' } });
      expect(verifyResult(broken.sealed, trusted)).toEqual({ ok: true });
    }

    // No error is delivered so: every catalogued outcome is `not_started` or `unknown`.
    for (const code of ERROR_CODES) {
      const entry = ERROR_CATALOG[code];
      const retryAfterMs = entry.retry_after.policy === 'required' ? entry.retry_after.min_ms : undefined;
      const subject: SealResultInput['subject'] = { kind: 'error', code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
      expect(() => reconciled(subject), code).toThrow(/^sealResult: execution\.delivery "receipt_reconciled" cannot carry the error /);
      expect(() => reconciled({ ...subject, receipt: 'orders-read-881' }), code).toThrow(TypeError);
      // Delivered fresh, the same error seals as before.
      expect(sealResult(orderInput({ call: keyedCall, subject })).sealed.model_result.error?.code).toBe(code);
    }
    // An unregistered tool is sealed as UNKNOWN_TOOL, which no reconciliation answers.
    expect(() => reconciled({ kind: 'data', output: copy(orderOutput) }, 'send_email')).toThrow(/cannot carry the error UNKNOWN_TOOL/);
  });

  it('refuses a reason field naming a place the arguments do not hold, after the template matched (review 6, F3)', () => {
    // `/lines/*/quantity` matches any index up to six digits: `/lines/900100/quantity` for one line
    // carried digits of the caller's choosing (a numeric subject id) into a trusted_control error.
    const refusal = (code: 'RULE_REJECTED' | 'INVALID_ARGUMENTS', field: string, args: SealResultInput['arguments'] = proposal) =>
      sealResult({
        ...orderInput(),
        tool_name: 'create_refund_draft',
        call: draftCall,
        arguments: args,
        subject: { kind: 'error', code, reasons: [{ field, rule: code === 'RULE_REJECTED' ? 'quantity_exceeds_eligible' : 'required' }] },
      });
    const held = /^sealResult: an error reason field names a place the arguments do not hold/;
    for (const field of ['/lines/900100/quantity', '/lines/1/quantity', '/lines/1']) {
      expect(() => refusal('RULE_REJECTED', field), field).toThrow(held);
      expect(() => refusal('INVALID_ARGUMENTS', field), field).toThrow(held);
    }
    for (const field of ['', '/lines', '/lines/0', '/lines/0/quantity', '/order_id']) {
      expect(refusal('RULE_REJECTED', field).sealed.model_result.error?.reasons, field).toEqual([{ field, rule: 'quantity_exceeds_eligible' }]);
    }
    // A `required` refusal names the member its parent lacks; nothing below a missing member exists,
    // and a string has no places.
    const { lines: _lines, ...withoutLines } = proposal;
    const { quantity: _quantity, ...lineWithoutQuantity } = proposal.lines[0]!;
    expect(refusal('INVALID_ARGUMENTS', '/reason').sealed.model_result.error?.reasons).toEqual([{ field: '/reason', rule: 'required' }]);
    expect(refusal('INVALID_ARGUMENTS', '/lines', withoutLines).sealed.model_result.error?.reasons).toEqual([{ field: '/lines', rule: 'required' }]);
    expect(refusal('INVALID_ARGUMENTS', '/lines/0/quantity', { ...proposal, lines: [lineWithoutQuantity] }).sealed.model_result.error?.reasons).toEqual([
      { field: '/lines/0/quantity', rule: 'required' },
    ]);
    expect(() => refusal('INVALID_ARGUMENTS', '/lines/0/quantity', withoutLines)).toThrow(held);
    expect(() => refusal('INVALID_ARGUMENTS', '/lines/0', { ...proposal, lines: 'LINE-1' })).toThrow(held);
    // Arguments that never parsed: the guard's INVALID_ARGUMENTS names places of the raw text,
    // which the seal never sees; any other code names `""` then.
    expect(refusal('INVALID_ARGUMENTS', '/lines/3/quantity', null).sealed.model_result.error?.reasons).toEqual([{ field: '/lines/3/quantity', rule: 'required' }]);
    expect(() => refusal('RULE_REJECTED', '/lines/0/quantity', null)).toThrow(held);
    expect(refusal('RULE_REJECTED', '', null).sealed.model_result.error?.reasons).toEqual([{ field: '', rule: 'quantity_exceeds_eligible' }]);
  });

  it('throws for caller bugs, never for handler output', () => {
    expect(() => sealResult(orderInput({ execution: { delivery: 'fresh', outcome: 'not_started' } }))).toThrow(TypeError);
    expect(() => sealResult(orderInput({ execution: { delivery: 'cached' as 'fresh' } }))).toThrow(/delivery/);
    expect(() => sealResult(orderInput({ call: { ...call, call_id: '' } }))).toThrow(/call_id/);
    expect(() => sealResult(orderInput({ call: { ...call, idempotency_key: '' } }))).toThrow(/idempotency_key/);
    expect(() => sealResult(orderInput({ now: () => '2026-07-19T00:00:01+02:00' }))).toThrow(/UTC/);
    expect(() => sealResult(orderInput({ now: () => new Date(Number.NaN) }))).toThrow(/invalid Date/);
    expect(() => sealResult(orderInput({ subject: { kind: 'error', code: 'RATE_LIMIT' } }))).toThrow(/retry_after_ms/);
    expect(() => sealResult(orderInput({ subject: { kind: 'error', code: 'NOT_FOUND', retryAfterMs: 10 } }))).toThrow();
    expect(() => sealResult(orderInput({ redactions: [{ path: '', reason: 'Not Snake' }] }))).toThrow(/redaction/);
    expect(() => sealResult(orderInput({ redactions: Array.from({ length: 64 }, () => ({ path: '', reason: 'x' })) }))).toThrow(/redactions/);
    for (const output of [null, undefined, 'ok', Symbol('x'), () => 1, new Map(), Promise.resolve(orderOutput)]) {
      expect(sealResult(orderInput({ subject: { kind: 'data', output } })).sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    }
  });

  it('throws a TypeError, before sealing anything, for a redaction whose reason or path is missing or not a string', () => {
    // Review: `REDACTION_REASON.test(reason)` coerced undefined, null and ['ok'] to matching text, so
    // such a redaction was sealed, `canonical_protected_audit` came out null and the package failed
    // its own verification (malformed_package).
    const cases: [unknown, RegExp][] = [
      [[{ path: '/data/x' }], /^sealResult: redactions\[0\]\.reason must be a snake_case string/],
      [[{ path: '/data/x', reason: null }], /^sealResult: redactions\[0\]\.reason must be a snake_case string/],
      [[{ path: '/data/x', reason: ['ok'] }], /^sealResult: redactions\[0\]\.reason must be a snake_case string/],
      [[{ path: '/data/x', reason: 7 }], /^sealResult: redactions\[0\]\.reason must be a snake_case string/],
      [[{ path: '/data/x', reason: 'pii' }, { reason: 'pii' }], /^sealResult: redactions\[1\]\.path must be a string/],
      [[{ path: null, reason: 'pii' }], /^sealResult: redactions\[0\]\.path must be a string/],
      [[{ path: ['/data/x'], reason: 'pii' }], /^sealResult: redactions\[0\]\.path must be a string/],
      [[{ path: 'x'.repeat(257), reason: 'pii' }], /^sealResult: redactions\[0\]\.path must be a string of at most 256/],
      [[null], /^sealResult: redactions\[0\] must be an object/],
      // A hole in a sparse array.
      [[{ path: '', reason: 'pii' }, , { path: '', reason: 'pii' }], /^sealResult: redactions\[1\] must be an object/],
      [['pii'], /^sealResult: redactions\[0\] must be an object/],
      ['pii', /^sealResult: redactions must be an array/],
      [{ length: 1, 0: { path: '', reason: 'pii' } }, /^sealResult: redactions must be an array/],
    ];
    for (const [redactions, message] of cases) {
      for (const subject of [{ kind: 'data', output: copy(orderOutput) }, { kind: 'error', code: 'NOT_FOUND' }] as const) {
        // Nothing is sealed: the clock is not read and no digest is computed.
        let work = 0;
        const counting = {
          ...digester,
          requestDigest: (...args: Parameters<typeof digester.requestDigest>) => (work++, digester.requestDigest(...args)),
          resultDigestFromCanonical: (text: string) => (work++, digester.resultDigestFromCanonical(text)),
        };
        const now = () => (work++, '2026-07-19T00:00:01Z');
        let thrown: unknown;
        try {
          sealResult(orderInput({ redactions: redactions as readonly Redaction[], subject, digester: counting, now }));
        } catch (error) {
          thrown = error;
        }
        expect(thrown, JSON.stringify(redactions)).toBeInstanceOf(TypeError);
        expect((thrown as Error).message).toMatch(message);
        expect(work).toBe(0);
      }
    }
  });

  it('reads each redaction once: what it checked is what it records', () => {
    let reads = 0;
    const shifty = {
      path: '/data/note',
      get reason(): unknown {
        reads++;
        return reads === 1 ? 'pii' : undefined;
      },
    };
    const output = sealResult(orderInput({ redactions: [shifty as { path: string; reason: string }] }));
    expect(reads).toBe(1);
    expect(output.sealed.protected_audit.redactions).toEqual([{ path: '/data/note', reason: 'pii' }]);
    expect(output.canonical_protected_audit).not.toBeNull();
  });

  it('either throws a TypeError for the redactions or seals a package that passes its own verification (property)', () => {
    const field = fc.oneof(
      fc.constantFrom('', '/data/note', 'pii', 'sensitive_key', 'Not Snake', 'x'.repeat(64), 'a'.repeat(65), 'x'.repeat(257), '\ud800'),
      fc.string({ maxLength: 8 }),
      fc.anything(),
    );
    const redaction = fc.oneof(fc.record({ path: field, reason: field }, { requiredKeys: [] }), fc.anything());
    let sealed = 0;
    fc.assert(
      fc.property(fc.array(redaction, { maxLength: 3 }), fc.boolean(), (redactions, asError) => {
        const subject = asError ? ({ kind: 'error', code: 'NOT_FOUND' } as const) : ({ kind: 'data', output: copy(orderOutput) } as const);
        let output: ReturnType<typeof sealResult>;
        try {
          output = sealResult(orderInput({ redactions: redactions as readonly Redaction[], subject }));
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        sealed++;
        expect(output.canonical_protected_audit).not.toBeNull();
        const trusted = { registry, tool_name: 'get_order', principal, call, arguments: { order_id: 'ORDER-C7' }, digester };
        expect(verifyResult(output.sealed, trusted)).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
    expect(sealed).toBeGreaterThan(0);
  });

  it('throws a TypeError naming the field for a lone surrogate in the trusted principal or call', () => {
    // Fuzzing review: a claim parsed from a token ("\ud800") threw a CanonicalizationError from deep
    // inside the digests; it is malformed trusted input like an empty call id, and said so up front.
    const lone = (prefix: string) => `${prefix}${String.fromCharCode(0xd800)}`;
    const cases: [Partial<SealResultInput>, RegExp][] = [
      [{ principal: { ...principal, tenant_id: lone('tenant-') } }, /^sealResult: principal\.tenant_id holds a lone surrogate/],
      [{ principal: { ...principal, subject_id: `${String.fromCharCode(0xdc00)}x` } }, /^sealResult: principal\.subject_id holds a lone surrogate/],
      [{ call: { ...call, call_id: String.fromCharCode(0xdc00) } }, /^sealResult: call\.call_id holds a lone surrogate/],
      [{ call: { ...call, response_id: lone('resp_') } }, /^sealResult: call\.response_id holds a lone surrogate/],
      [{ call: { ...call, operation_id: lone('op-') } }, /^sealResult: call\.operation_id holds a lone surrogate/],
      [{ call: { ...call, idempotency_key: lone('idem-') } }, /^sealResult: call\.idempotency_key holds a lone surrogate/],
      [{ redactions: [{ path: lone('/data/'), reason: 'pii' }] }, /^sealResult: a redaction path holds a lone surrogate/],
    ];
    for (const [overrides, message] of cases) {
      for (const subject of [{ kind: 'data', output: copy(orderOutput) }, { kind: 'error', code: 'NOT_FOUND' }] as const) {
        let thrown: unknown;
        try {
          sealResult(orderInput({ ...overrides, subject }));
        } catch (error) {
          thrown = error;
        }
        expect(thrown, String(message)).toBeInstanceOf(TypeError);
        expect((thrown as Error).message).toMatch(message);
      }
    }
    // A well-formed pair is no lone surrogate.
    expect(sealResult(orderInput({ principal: { ...principal, subject_id: 'drafter-😀' } })).violations).toEqual([]);
  });

  it('throws a TypeError naming the call field the protected_audit schema refuses, never sealing a package its own verification calls malformed', () => {
    // Review finding: a 257-character call id or `provider: "OpenAI"` was sealed, then refused by
    // verifyResult on the very same package as malformed_package.
    const cases: [Partial<SealResultInput['call']>, string][] = [
      [{ provider: 'OpenAI' }, 'provider'],
      [{ provider: 'x'.repeat(33) }, 'provider'],
      [{ api_family: 'Responses' }, 'api_family'],
      [{ response_id: 'r'.repeat(257) }, 'response_id'],
      [{ call_id: 'c'.repeat(257) }, 'call_id'],
      [{ adapter_revision: 'a'.repeat(65) }, 'adapter_revision'],
      [{ operation_id: 'o'.repeat(129) }, 'operation_id'],
      [{ idempotency_key: 'k'.repeat(257) }, 'idempotency_key'],
    ];
    for (const [fields, name] of cases) {
      expect(() => sealResult(orderInput({ call: { ...call, ...fields } })), name).toThrow(
        new RegExp(`^sealResult: call\\.${name} breaks the protected_audit schema`),
      );
    }
    // At the bounds (a code point outside the BMP counts once, as JSON Schema counts it): sealed and verified.
    const longest = { ...call, call_id: '😀'.repeat(256), operation_id: 'o'.repeat(128), idempotency_key: 'k'.repeat(256) };
    const output = sealResult(orderInput({ call: longest }));
    const trusted = { registry, tool_name: 'get_order', principal, call: longest, arguments: { order_id: 'ORDER-C7' }, digester };
    expect(verifyResult(output.sealed, trusted)).toEqual({ ok: true });
  });

  it('either throws a TypeError for the call or seals a package that passes its own verification (property)', () => {
    const text = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('openai', 'responses', 'A', 'a-b.c', 'x'.repeat(65), 'y'.repeat(129), 'z'.repeat(257)));
    let sealed = 0;
    fc.assert(
      fc.property(
        fc.record({ provider: text, api_family: text, call_id: text, adapter_revision: text, operation_id: text, idempotency_key: fc.option(text) }),
        (fields) => {
          const trial = { ...call, ...fields };
          let output: ReturnType<typeof sealResult>;
          try {
            output = sealResult(orderInput({ call: trial }));
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
            return;
          }
          sealed++;
          const trusted = { registry, tool_name: 'get_order', principal, call: trial, arguments: { order_id: 'ORDER-C7' }, digester };
          expect(verifyResult(output.sealed, trusted)).toEqual({ ok: true });
        },
      ),
      // About one trial in fifty-five draws six fields that all fit: 300 runs sealed none on about
      // one seed in two hundred (a CI run met one); 1,500 leave that to about one in 10^11.
      { numRuns: 1_500 },
    );
    expect(sealed).toBeGreaterThan(0);
  });

  it("throws a TypeError for an error subject's receipt or status_ref its own verification or the data path refuses, never sealing one (review 1)", () => {
    // Review finding F5: copied unchecked, a 300-character, numeric or object receipt was sealed and
    // then refused by verifyResult on the very same package (malformed_package); a NUL was sealed
    // although a handler's receipt with one is refused (downstream_reference).
    const refused: [string, unknown][] = [
      ['300 characters', 'r'.repeat(300)],
      ['257 characters', 'r'.repeat(257)],
      ['257 UTF-16 units (a pair at the end)', `${'r'.repeat(255)}😀`],
      ['a number', 42],
      ['an object', { id: 'rcpt-1' }],
      ['an array', ['rcpt-1']],
      ['a boolean', true],
      ['empty', ''],
      ['a NUL', 'rcpt\u00001'],
      ['only a NUL', '\u0000'],
    ];
    for (const field of ['receipt', 'status_ref'] as const) {
      for (const [name, value] of refused) {
        const subject = { kind: 'error', code: 'OUTCOME_UNKNOWN', [field]: value } as SealResultInput['subject'];
        expect(() => sealResult(orderInput({ call: keyedCall, subject })), `${field}: ${name}`).toThrow(
          new RegExp(`^sealResult: subject\\.${field} must be null or a string of 1 to 256 characters without NUL`),
        );
      }
    }
    // What a handler's references may be: absent, null, 1 to 256 units, control characters other
    // than NUL included (as the dispatcher's worst-case package holds). Sealed, and verified.
    const trusted = { registry, tool_name: 'get_order', principal, call: keyedCall, arguments: { order_id: 'ORDER-C7' }, digester };
    for (const value of [undefined, null, 'r', 'r'.repeat(256), '\u0001'.repeat(256), `${'r'.repeat(254)}😀`]) {
      const subject = { kind: 'error', code: 'OUTCOME_UNKNOWN', receipt: value, status_ref: value } as SealResultInput['subject'];
      const output = sealResult(orderInput({ call: keyedCall, subject }));
      expect(output.sealed.protected_audit.downstream).toMatchObject({ receipt: value ?? null, status_ref: value ?? null });
      expect(verifyResult(output.sealed, trusted)).toEqual({ ok: true });
      expect(output.canonical_protected_audit).toBe(canonicalize(output.sealed.protected_audit));
    }
  });

  it('either throws a TypeError for an error receipt or status_ref or seals a package that passes its own verification (property)', () => {
    const reference = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: 'grapheme', minLength: 250, maxLength: 260 }),
      fc.constantFrom<unknown>(0, 1.5, true, {}, [], 'rcpt\u0000'),
    );
    const trusted = { registry, tool_name: 'get_order', principal, call: keyedCall, arguments: { order_id: 'ORDER-C7' }, digester };
    let sealed = 0;
    fc.assert(
      fc.property(reference, reference, (receipt, status_ref) => {
        const subject = { kind: 'error', code: 'OUTCOME_UNKNOWN', receipt, status_ref } as SealResultInput['subject'];
        let output: ReturnType<typeof sealResult>;
        try {
          output = sealResult(orderInput({ call: keyedCall, subject }));
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        sealed++;
        expect(verifyResult(output.sealed, trusted)).toEqual({ ok: true });
        expect(output.canonical_protected_audit).toBe(canonicalize(output.sealed.protected_audit));
      }),
      { numRuns: 500 },
    );
    expect(sealed).toBeGreaterThan(0);
  });

  it('throws a TypeError for arguments without a canonical JSON form (the validated arguments never have one)', () => {
    for (const args of [{ order_id: `ORDER-C7${String.fromCharCode(0xd800)}` }, { order_id: 'ORDER-C7', at: new Date(0) }]) {
      expect(() => sealResult(orderInput({ arguments: args as unknown as SealResultInput['arguments'], subject: { kind: 'error', code: 'NOT_FOUND' } }))).toThrow(
        /^sealResult: arguments have no canonical JSON form/,
      );
    }
  });
});

function outcomeOf(run: () => string): unknown {
  try {
    return run();
  } catch (error) {
    return { thrown: String(error) };
  }
}
