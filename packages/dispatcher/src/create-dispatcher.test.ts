import type { ErrorReason, ModelResult, PrincipalContext } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { ERROR_CATALOG } from '@toolseal/errors';
import { describe, expect, it, vi } from 'vitest';
import {
  BASELINE_REFUND,
  CEDAR_DRAFTER,
  CEDAR_OTHER,
  createTestHost,
  only,
  START,
  toolCall,
  type TestHost,
} from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedCall, DispatchedTurn } from './dispatch-types.js';
import type { StatusQueryOutcome } from './dispatcher-tool.js';

const context = { principal: CEDAR_DRAFTER };

function errorOf(result: DispatchedCall): { code: string | undefined; reasons: ErrorReason[] | undefined } {
  const { error } = result.sealed.model_result;
  return { code: error?.code, reasons: error?.reasons };
}

/** Every result of a turn verifies against the turn's own trusted context. */
function expectVerified(turn: DispatchedTurn, calls: Parameters<TestHost['dispatcher']['dispatch']>[0]): void {
  for (const call of calls) {
    const result = turn.results.find((candidate) => candidate.call_id === call.call_id);
    if (result === undefined) throw new Error(`no result for ${call.call_id}`);
    expect(turn.verify(result.sealed, call)).toEqual({ ok: true });
  }
}

/** The expected catalog fields of an error result. */
function expectCatalog(result: ModelResult, code: keyof typeof ERROR_CATALOG): void {
  const entry = ERROR_CATALOG[code];
  expect(result.status).toBe(entry.status);
  expect(result.execution.outcome).toBe(entry.outcome);
  expect(result.error?.code).toBe(code);
  expect(result.error?.recovery).toBe(entry.recovery);
  expect(result.error?.safe_message).toBe(entry.safe_message);
  expect(result.data).toBeNull();
  expect(result.provenance.trust).toBe('trusted_control');
}

async function approveBaseline(host: TestHost, key: string, args: object = BASELINE_REFUND): Promise<Approval> {
  const preview = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', args)], context));
  expect(errorOf(preview).code).toBe('APPROVAL_REQUIRED');
  const request = preview.approval_request;
  if (request === null) throw new Error('no approval preview');
  return {
    request_sha256: request.request_sha256,
    tool_name: request.tool_name,
    idempotency_key: key,
    approved_by: 'supervisor-1',
    expires_at: host.clock.now() + 600_000,
  };
}

describe('a successful read', () => {
  it('seals get_order as succeeded/fresh/committed with registry provenance, audits it, and verifies', async () => {
    const host = createTestHost();
    const call = toolCall('get_order', { order_id: 'ORDER-C7' });
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result).toEqual({
      schema_version: 'tool-model-result-v2',
      status: 'succeeded',
      data: {
        order_ref: 'ORDER-C7',
        status: 'paid',
        amount: 6000,
        unit: 'CREDIT_A',
        lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }],
      },
      error: null,
      execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
      provenance: {
        source_label: 'orders',
        producer_revision: 'orders-mock-v2',
        resource_revision: 'order-c7-r1',
        observed_at: new Date(START).toISOString(),
        trust: 'untrusted_data',
      },
    });
    expect(result.canonical_model_result).toBe(JSON.stringify(JSON.parse(result.canonical_model_result)));
    expect(result.sealed.protected_audit.downstream).toEqual({
      operation_id: 'op-1',
      idempotency_key: null,
      receipt: null,
      status_ref: null,
    });
    expect(result.sealed.protected_audit.principal_ref).toBe(host.digester.principalRef(CEDAR_DRAFTER));
    expectVerified(turn, [call]);
    expect(result.audit_entry?.sequence).toBe(1);
    const page = await host.stores.auditLog.query({ kind: 'sealed_call', call_id: call.call_id }, { limit: 10 });
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]?.kind).toBe('sealed_call');
    expect(page.entries[0]?.body['protected_audit']).toEqual(result.sealed.protected_audit);
    expect(page.entries[0]?.body['gate']).toBe('sealed');
  });

  it('gives the handler the principal from the context only, frozen, with the validated arguments frozen too', async () => {
    const host = createTestHost();
    let seen: { principal: unknown; argumentsFrozen: boolean; principalFrozen: boolean } | undefined;
    const original = host.impl.get_order;
    host.impl.get_order = (input) => {
      seen = {
        principal: input.principal,
        argumentsFrozen: Object.isFrozen(input.arguments),
        principalFrozen: Object.isFrozen(input.principal) && Object.isFrozen(input.principal.roles),
      };
      return original(input);
    };
    // A model that names a tenant in its arguments is refused by the exact input contract.
    const smuggled = only(
      await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-M9', tenant_id: 'maple' })], context),
    );
    expect(errorOf(smuggled)).toEqual({ code: 'INVALID_ARGUMENTS', reasons: [{ field: '', rule: 'additional_properties' }] });
    await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context);
    expect(seen).toEqual({ principal: CEDAR_DRAFTER, argumentsFrozen: true, principalFrozen: true });
  });
});

describe('gate: registry', () => {
  it('answers an unregistered tool with UNKNOWN_TOOL, sealed under the reserved contract, handler untouched', async () => {
    const host = createTestHost();
    const call = toolCall('send_email', { to: 'x@example.com' });
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(result.gate).toBe('registry');
    expectCatalog(result.sealed.model_result, 'UNKNOWN_TOOL');
    expect(result.sealed.protected_audit.tool_contract.tool_name).toBe('toolseal-unregistered');
    expectVerified(turn, [call]);
  });

  it('does not resolve inherited names (toString, __proto__) as tools', async () => {
    const host = createTestHost();
    const turn = await host.dispatcher.dispatch([toolCall('toString', {}), toolCall('__proto__', {})], context);
    expect(turn.results.map((result) => errorOf(result).code)).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL']);
  });
});

describe('gate: rate limit', () => {
  it('answers RATE_LIMIT with retry_after_ms once the bucket is empty, per principal and tool, and refills by the clock', async () => {
    const host = createTestHost({ options: { rateLimit: { capacity: 2, refillPerSecond: 1 } } });
    const read = () => toolCall('get_order', { order_id: 'ORDER-C7' });
    const first = await host.dispatcher.dispatch([read(), read(), read()], context);
    expect(first.results.map((result) => result.sealed.model_result.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    const limited = first.results[2] as DispatchedCall;
    expect(limited.gate).toBe('rate_limit');
    expectCatalog(limited.sealed.model_result, 'RATE_LIMIT');
    expect(limited.sealed.model_result.error?.retry_after_ms).toBe(1000);
    expect(host.calls['get_order']).toBe(2);
    // Another principal has its own bucket; another tool has its own bucket.
    const other = await host.dispatcher.dispatch([read()], { principal: CEDAR_OTHER });
    expect(other.results[0]?.gate).not.toBe('rate_limit');
    const kb = await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], context);
    expect(kb.results[0]?.sealed.model_result.status).toBe('succeeded');
    host.clock.advance(1000);
    const later = await host.dispatcher.dispatch([read()], context);
    expect(later.results[0]?.sealed.model_result.status).toBe('succeeded');
  });

  it('lets a tool switch rate limiting off', async () => {
    const host = createTestHost({
      options: { rateLimit: { capacity: 1, refillPerSecond: 1 } },
      tools: (tools) => tools.map((tool) => (tool.name === 'kb_search' ? { ...tool, rateLimit: false } : tool)),
    });
    const turn = await host.dispatcher.dispatch(
      [toolCall('kb_search', { query: 'a' }), toolCall('kb_search', { query: 'b' }), toolCall('kb_search', { query: 'c' })],
      context,
    );
    expect(turn.results.every((result) => result.sealed.model_result.status === 'succeeded')).toBe(true);
  });
});

describe('gate: guard', () => {
  const cases: [string, string, ErrorReason][] = [
    ['a duplicate key', '{"order_id":"ORDER-C7","order_id":"ORDER-M9"}', { field: '', rule: 'duplicate_key' }],
    ['a __proto__ key', '{"order_id":"ORDER-C7","__proto__":{"admin":true}}', { field: '', rule: 'forbidden_key' }],
    ['malformed JSON', '{"order_id":', { field: '/order_id', rule: 'malformed_json' }],
    ['a byte-order mark', '\ufeff{"order_id":"ORDER-C7"}', { field: '', rule: 'byte_order_mark' }],
  ];
  it.each(cases)('refuses %s with INVALID_ARGUMENTS and one finite reason, handler untouched', async (_name, text, reason) => {
    const host = createTestHost();
    const call = toolCall('get_order', text);
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(result.gate).toBe('guard');
    expectCatalog(result.sealed.model_result, 'INVALID_ARGUMENTS');
    expect(result.sealed.model_result.error?.reasons).toEqual([reason]);
    expect(host.calls['get_order']).toBe(0);
    expectVerified(turn, [call]);
  });

  it("applies the tool's own limits before parsing (bytes, depth), for text and for SDK-parsed values", async () => {
    const host = createTestHost({
      tools: (tools) => tools.map((tool) => (tool.name === 'kb_search' ? { ...tool, argumentLimits: { maxBytes: 64, maxDepth: 2 } } : tool)),
    });
    const long = { query: 'x'.repeat(80) };
    const deep = { query: 'q', page: [[[1]]] };
    const turn = await host.dispatcher.dispatch(
      [
        toolCall('kb_search', long),
        toolCall('kb_search', long, { format: 'json_value' }),
        toolCall('kb_search', deep),
        toolCall('kb_search', deep, { format: 'json_value' }),
      ],
      context,
    );
    expect(turn.results.map((result) => [result.gate, errorOf(result).reasons?.[0]?.rule])).toEqual([
      ['guard', 'max_bytes'],
      ['guard', 'max_bytes'],
      ['guard', 'max_depth'],
      ['guard', 'max_depth'],
    ]);
  });

  it('refuses SDK-parsed values JSON cannot express, and copies the rest so the SDK object cannot change them later', async () => {
    const host = createTestHost();
    let handlerSaw: unknown;
    const original = host.impl.kb_search;
    host.impl.kb_search = (input) => {
      handlerSaw = input.arguments['query'];
      return original(input);
    };
    const sdkValue = { query: 'refund' };
    const turn = await host.dispatcher.dispatch(
      [
        toolCall('kb_search', { query: new Date(0) }, { format: 'json_value' }),
        toolCall('kb_search', sdkValue, { format: 'json_value' }),
      ],
      context,
    );
    expect(errorOf(turn.results[0] as DispatchedCall)).toEqual({
      code: 'INVALID_ARGUMENTS',
      reasons: [{ field: '/query', rule: 'non_json_value' }],
    });
    sdkValue.query = 'changed after dispatch';
    expect(handlerSaw).toBe('refund');
    expect(Object.isFrozen(sdkValue)).toBe(false);
  });
  it('refuses an SDK-parsed integer beyond 2^53 whatever the adapter checked (it may be another number rounded)', async () => {
    const host = createTestHost();
    const turn = await host.dispatcher.dispatch(
      [
        toolCall('kb_search', { query: 'refund', page: 9007199254740992 }, { format: 'json_value' }),
        toolCall('kb_search', { query: 'refund', filters: [{ order_no: -(2 ** 60) }] }, { format: 'json_value' }),
        toolCall('kb_search', { query: 'refund', page: 9007199254740991 }, { format: 'json_value' }),
      ],
      context,
    );
    expect(turn.results.map((result) => [result.gate, errorOf(result).reasons?.[0]?.rule])).toEqual([
      ['guard', 'non_json_value'],
      ['guard', 'non_json_value'],
      // A safe integer passes the guard, and meets the input schema's own bound on `page`.
      ['input_schema', 'maximum'],
    ]);
    expect(host.calls['kb_search'] ?? 0).toBe(0);
  });

  it('reads an SDK-parsed value once and refuses an array carrying more than its items, never throwing', async () => {
    const host = createTestHost();
    const withFunction = Object.assign([{ line_id: 'LINE-1', quantity: 1 }], { toJSON: () => 'x' });
    const withApproval = Object.assign([{ line_id: 'LINE-1', quantity: 1 }], { approved: true });
    let reads = 0;
    const changing: unknown[] = [];
    Object.defineProperty(changing, 0, {
      enumerable: true,
      get() {
        reads++;
        return reads === 1 ? { line_id: 'LINE-1', quantity: 1 } : { line_id: 'LINE-1', quantity: 1, approved: true };
      },
    });
    const turn = await host.dispatcher.dispatch(
      [
        toolCall('create_refund_draft', { ...BASELINE_REFUND, lines: withFunction }, { format: 'json_value' }),
        toolCall('create_refund_draft', { ...BASELINE_REFUND, lines: withApproval }, { format: 'json_value' }),
        toolCall('create_refund_draft', { ...BASELINE_REFUND, lines: changing }, { format: 'json_value' }),
      ],
      context,
    );
    const refused = { code: 'INVALID_ARGUMENTS', reasons: [{ field: '/lines', rule: 'non_json_value' }] };
    expect(turn.results.slice(0, 2).map((result) => [result.gate, errorOf(result)])).toEqual([
      ['guard', refused],
      ['guard', refused],
    ]);
    // The getter answered once; the copy judged is the one kept (no `approved` line reaches later gates).
    expect(reads).toBe(1);
    expect(turn.results[2]?.gate).not.toBe('guard');
  });
});

describe('gate: input contract', () => {
  it('refuses schema-invalid arguments with contract-safe field reasons', async () => {
    const host = createTestHost();
    const turn = await host.dispatcher.dispatch(
      [
        toolCall('get_order', {}),
        toolCall('get_order', { order_id: 'order-c7' }),
        toolCall('get_order', { order_id: 7 }),
        toolCall('get_order', '["ORDER-C7"]'),
        toolCall('create_refund_draft', { ...BASELINE_REFUND, amount: 0 }),
      ],
      context,
    );
    expect(turn.results.map((result) => [result.gate, errorOf(result)])).toEqual([
      ['input_schema', { code: 'INVALID_ARGUMENTS', reasons: [{ field: '/order_id', rule: 'required' }] }],
      ['input_schema', { code: 'INVALID_ARGUMENTS', reasons: [{ field: '/order_id', rule: 'pattern' }] }],
      ['input_schema', { code: 'INVALID_ARGUMENTS', reasons: [{ field: '/order_id', rule: 'type' }] }],
      ['input_schema', { code: 'INVALID_ARGUMENTS', reasons: [{ field: '', rule: 'type' }] }],
      ['input_schema', { code: 'INVALID_ARGUMENTS', reasons: [{ field: '/amount', rule: 'minimum' }] }],
    ]);
    expect(host.calls['get_order']).toBe(0);
  });
});

describe('gate: trusted checks', () => {
  it('answers "not yours" and "does not exist" with byte-identical NOT_FOUND errors', async () => {
    const host = createTestHost();
    const turn = await host.dispatcher.dispatch(
      [toolCall('get_order', { order_id: 'ORDER-M9' }), toolCall('get_order', { order_id: 'ORDER-Z404' })],
      context,
    );
    const [foreign, missing] = turn.results as [DispatchedCall, DispatchedCall];
    expect(foreign.gate).toBe('trusted_checks');
    expectCatalog(foreign.sealed.model_result, 'NOT_FOUND');
    expect(foreign.canonical_model_result).toBe(missing.canonical_model_result);
    expect(host.calls['get_order']).toBe(0);
  });

  it('holds the call (FACTS_UNAVAILABLE) when the check throws, hangs past the deadline, or answers outside the catalog', async () => {
    const host = createTestHost({ deadlines: { get_order: 40 } });
    const answers = [
      () => {
        throw new Error('facts store down: password=hunter2');
      },
      () => new Promise<never>(() => undefined),
      () => ({ ok: false as const, code: 'RULE_REJECTED' as const, reasons: [{ field: '/order_id', rule: 'made_up_rule' }] }),
      () => ({ ok: false as const, code: 'TOOL_ERROR' as never }),
      () => 'yes' as never,
    ];
    for (const answer of answers) {
      host.impl.get_order_check = answer;
      const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
      expect(result.gate).toBe('trusted_checks');
      expectCatalog(result.sealed.model_result, 'FACTS_UNAVAILABLE');
      expect(result.canonical_model_result).not.toContain('hunter2');
    }
    expect(host.calls['get_order']).toBe(0);
  });

  it('passes RULE_REJECTED with catalog reasons through', async () => {
    const host = createTestHost();
    host.impl.get_order_check = () => ({ ok: false, code: 'RULE_REJECTED', reasons: [{ field: '/order_id', rule: 'rule_violation' }] });
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    expect(errorOf(result)).toEqual({ code: 'RULE_REJECTED', reasons: [{ field: '/order_id', rule: 'rule_violation' }] });
  });

  it('runs the proposal gate on the proposal fields only: the tool contract may add an optional reason', async () => {
    const host = createTestHost();
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', { ...BASELINE_REFUND, reason: 'damaged' })], context),
    );
    // Ready for review is not approval: the approval gate answers next.
    expect(result.gate).toBe('approval');
    expect(result.decision_record?.decision).toBe('ready_for_review');
    expect(result.decision_record?.contract_id).toBeTypeOf('string');
  });
});

describe('gate: approval', () => {
  it('answers an unapproved write with APPROVAL_REQUIRED and a bound preview that never reaches model_result', async () => {
    const host = createTestHost();
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(result.gate).toBe('approval');
    expectCatalog(result.sealed.model_result, 'APPROVAL_REQUIRED');
    expect(result.approval_request).toEqual({
      request_sha256: result.sealed.protected_audit.binding.request_sha256,
      tool_name: 'create_refund_draft',
      arguments: BASELINE_REFUND,
      policy_revision: 'refund-policy-v1',
    });
    expect(result.canonical_model_result).not.toContain(result.sealed.protected_audit.binding.request_sha256);
    expect(result.canonical_model_result).not.toContain('ORDER-C7');
    expect(host.calls['create_refund_draft']).toBe(0);
    expectVerified(turn, [call]);
  });

  it('runs the write once approved, bound to the approval idempotency key', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'approval-key-1');
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], { ...context, approvals: [approval] });
    const result = only(turn);
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(result.sealed.model_result.execution).toEqual({ outcome: 'committed', delivery: 'fresh', complete: true, truncated: false });
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe('approval-key-1');
    expect(result.sealed.protected_audit.downstream.receipt).toBe('receipt-approval-key-1');
    expect(result.decision_record?.stage).toBe('recheck');
    expect(host.calls['create_refund_draft']).toBe(1);
    expectVerified(turn, [call]);
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', idempotency_key: 'approval-key-1' }, { limit: 5 })).entries[0];
    expect(entry?.body['approval']).toEqual({
      approved_by: 'supervisor-1',
      expires_at: approval.expires_at,
      request_sha256: approval.request_sha256,
    });
    // The idempotency record keeps the whole package as its canonical text, as sealed.
    const record = await host.stores.idempotencyStore.get('approval-key-1');
    expect(record?.result?.sealed_json).toBe(canonicalize(result.sealed));
  });

  it('never lets an approval for one request authorize another: other arguments, another principal, expired', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'approval-key-2');
    const changed = { ...BASELINE_REFUND, reason: 'other' };
    const otherArgs = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', changed)], { ...context, approvals: [approval] }),
    );
    expect(otherArgs.gate).toBe('approval');
    expectCatalog(otherArgs.sealed.model_result, 'APPROVAL_INVALID');
    expect(otherArgs.approval_request?.request_sha256).not.toBe(approval.request_sha256);

    const otherPrincipal = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], {
        principal: CEDAR_OTHER,
        approvals: [approval],
      }),
    );
    expectCatalog(otherPrincipal.sealed.model_result, 'APPROVAL_INVALID');

    host.clock.advance(600_000);
    const expired = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expectCatalog(expired.sealed.model_result, 'APPROVAL_INVALID');
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('checks the approval again before the effect: one that expires while the claim takes its time starts nothing (review)', async () => {
    for (const slowStep of ['claim', 'markStarted'] as const) {
      const host = createTestHost();
      const approval = { ...(await approveBaseline(host, `approval-key-slow-${slowStep}`)), expires_at: host.clock.now() + 1_000 };
      const store = host.stores.idempotencyStore;
      const original = store[slowStep].bind(store) as (input: never) => Promise<unknown>;
      // A busy database: 5 s pass while the store answers; the approval was good for one more second.
      (store as unknown as Record<string, unknown>)[slowStep] = async (input: never) => {
        host.clock.advance(5_000);
        return original(input);
      };
      const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
      expect(result.gate).toBe('approval');
      expectCatalog(result.sealed.model_result, 'APPROVAL_INVALID');
      // APPROVAL_INVALID means "regenerate a bound preview": the person is shown it again, as at the gate.
      expect(result.approval_request).toEqual({
        request_sha256: approval.request_sha256,
        tool_name: 'create_refund_draft',
        arguments: BASELINE_REFUND,
        policy_revision: 'refund-policy-v1',
      });
      expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
      // The key is free again: nothing started under it.
      expect((await store.get(`approval-key-slow-${slowStep}`))?.state ?? 'absent').not.toMatch(/^(started|unknown)$/);
    }
  });

  it('runs every trusted check before the approval gate: an approved request whose facts changed is STATE_CHANGED', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'approval-key-3');
    host.facts.state = 'revoked';
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expect(result.gate).toBe('trusted_checks');
    expectCatalog(result.sealed.model_result, 'STATE_CHANGED');
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('refuses malformed approvals as a host bug', async () => {
    const host = createTestHost();
    await expect(
      host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], {
        ...context,
        approvals: [{ request_sha256: 'abc' } as Approval],
      }),
    ).rejects.toThrow(TypeError);
  });
});

describe('gate: idempotency', () => {
  it('answers a duplicate call with local_replay after re-running authorization, and never runs the handler twice', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'dup-key');
    const approved = { ...context, approvals: [approval] };
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    const call = toolCall('create_refund_draft', BASELINE_REFUND, { callId: 'call_duplicate', responseId: 'resp_later' });
    const turn = await host.dispatcher.dispatch([call], approved);
    const replay = only(turn);
    expect(replay.gate).toBe('idempotency');
    expect(replay.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(replay.sealed.model_result.status).toBe('succeeded');
    expect(replay.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(replay.sealed.protected_audit.downstream.receipt).toBe('receipt-dup-key');
    expect(replay.sealed.protected_audit.provider_context.call_id).toBe('call_duplicate');
    expect(host.calls['create_refund_draft']).toBe(1);
    expectVerified(turn, [call]);
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: 'call_duplicate' }, { limit: 5 })).entries[0];
    expect(entry?.body['replay_of']).toBe(first.sealed.protected_audit.downstream.operation_id);

    // Authorization runs first: the same replay after the facts changed is refused, not replayed.
    host.facts.state = 'revoked';
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(errorOf(refused).code).toBe('STATE_CHANGED');
  });

  it('answers a key reused for another request with IDEMPOTENCY_CONFLICT', async () => {
    const host = createTestHost();
    const first = await approveBaseline(host, 'shared-key');
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [first] });
    const withReason = { ...BASELINE_REFUND, reason: 'damaged' };
    const second = await approveBaseline(host, 'shared-key', withReason);
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', withReason)], { ...context, approvals: [second] }),
    );
    expect(result.gate).toBe('idempotency');
    expectCatalog(result.sealed.model_result, 'IDEMPOTENCY_CONFLICT');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('reconciles a write that did not report back: OUTCOME_UNKNOWN, then a status query, never a second write', async () => {
    const host = createTestHost({ deadlines: { create_refund_draft: 40 } });
    const approval = await approveBaseline(host, 'crash-key');
    const approved = { ...context, approvals: [approval] };
    const original = host.impl.create_refund_draft;
    // The downstream commits, then the handler never answers (a crash after the commit).
    host.impl.create_refund_draft = (input) => {
      void original(input);
      return new Promise<never>(() => undefined);
    };
    const crashed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(crashed.gate).toBe('handler');
    expectCatalog(crashed.sealed.model_result, 'OUTCOME_UNKNOWN');
    expect((await host.stores.idempotencyStore.get('crash-key'))?.state).toBe('unknown');

    host.impl.create_refund_draft = original;
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], approved);
    const reconciled = only(turn);
    expect(reconciled.gate).toBe('status_query');
    expect(reconciled.sealed.model_result.status).toBe('succeeded');
    expect(reconciled.sealed.model_result.execution).toEqual({
      outcome: 'committed',
      delivery: 'receipt_reconciled',
      complete: true,
      truncated: false,
    });
    expect(reconciled.sealed.protected_audit.downstream.receipt).toBe('receipt-crash-key');
    expect(host.calls['create_refund_draft']).toBe(1);
    expectVerified(turn, [call]);
    expect((await host.stores.idempotencyStore.get('crash-key'))?.result?.delivery).toBe('receipt_reconciled');

    // A later duplicate replays the reconciled record locally.
    const later = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(later.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('keeps the outcome unknown while the status query finds nothing, and answers STATUS_CONFLICT when it disagrees', async () => {
    const host = createTestHost({ deadlines: { create_refund_draft: 30 } });
    const approval = await approveBaseline(host, 'unknown-key');
    const approved = { ...context, approvals: [approval] };
    host.impl.create_refund_draft = () => new Promise<never>(() => undefined);
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved);
    const stillUnknown = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(stillUnknown.gate).toBe('status_query');
    expectCatalog(stillUnknown.sealed.model_result, 'OUTCOME_UNKNOWN');

    host.impl.create_refund_draft_status = () => ({
      kind: 'committed',
      data: { draft_ref: 'DRAFT-OTHER', order_ref: 'ORDER-C7', amount: 4500, unit: 'CREDIT_A' },
      resource_revision: 'draft-c7-r1',
      observed_at: host.iso(),
      receipt: 'receipt-other',
    });
    const conflict = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(conflict.gate).toBe('status_query');
    expectCatalog(conflict.sealed.model_result, 'STATUS_CONFLICT');
    expect(conflict.violations).toContainEqual({ rule: 'echo_mismatch', path: '/data/amount' });
    expect(conflict.canonical_model_result).not.toContain('4500');

    for (const answer of [() => ({ kind: 'unknown' as const }), () => Promise.reject(new Error('status api down'))]) {
      host.impl.create_refund_draft_status = answer;
      const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
      expectCatalog(result.sealed.model_result, 'OUTCOME_UNKNOWN');
    }
    expect((await host.stores.idempotencyStore.get('unknown-key'))?.state).toBe('unknown');
  });

  it('reconciles only a downstream receipt: a committed answer without one keeps OUTCOME_UNKNOWN (spec 000)', async () => {
    const host = createTestHost({ deadlines: { create_refund_draft: 30 } });
    const approval = await approveBaseline(host, 'no-receipt-key');
    const approved = { ...context, approvals: [approval] };
    host.impl.create_refund_draft = () => new Promise<never>(() => undefined);
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved);
    const data = { draft_ref: 'DRAFT-NORECEIPT', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' };
    for (const receipt of [undefined, null]) {
      // What a status API that cannot name its receipt answers (outside the StatusQueryOutcome type).
      const answer = { kind: 'committed', data, resource_revision: 'draft-c7-r1', observed_at: host.iso(), ...(receipt === undefined ? {} : { receipt }) };
      host.impl.create_refund_draft_status = () => answer as unknown as StatusQueryOutcome;
      const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
      expect(result.gate).toBe('status_query');
      expectCatalog(result.sealed.model_result, 'OUTCOME_UNKNOWN');
      expect(result.sealed.model_result.execution.delivery).toBe('fresh');
      const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
      expect(entry?.body['notes']).toEqual(['status_committed_without_receipt']);
      expect((await host.stores.idempotencyStore.get('no-receipt-key'))?.state).toBe('unknown');
    }
    host.impl.create_refund_draft_status = () => ({ kind: 'committed', data, resource_revision: 'draft-c7-r1', observed_at: host.iso(), receipt: 'R-1' });
    const reconciled = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(reconciled.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(reconciled.sealed.protected_audit.downstream.receipt).toBe('R-1');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('keeps a write without a status query at OUTCOME_UNKNOWN once its outcome is unknown, never running it again', async () => {
    const host = createTestHost({
      deadlines: { create_refund_draft: 30 },
      tools: (tools) =>
        tools.map((tool) => {
          if (tool.name !== 'create_refund_draft') return tool;
          const { queryStatus: _dropped, ...rest } = tool;
          return rest;
        }),
    });
    const approval = await approveBaseline(host, 'no-status-key');
    const approved = { ...context, approvals: [approval] };
    host.impl.create_refund_draft = () => new Promise<never>(() => undefined);
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved);
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(again.gate).toBe('status_query');
    expectCatalog(again.sealed.model_result, 'OUTCOME_UNKNOWN');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('answers two concurrent calls under one key with one execution and OUTCOME_UNKNOWN for the other', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'parallel-key');
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return original(input);
    };
    const turn = await host.dispatcher.dispatch(
      [toolCall('create_refund_draft', BASELINE_REFUND), toolCall('create_refund_draft', BASELINE_REFUND)],
      { ...context, approvals: [approval] },
    );
    expect(turn.results.map((result) => result.sealed.model_result.status).sort()).toEqual(['succeeded', 'unknown']);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('refuses to replay a stored record that does not verify (tampered storage): STATUS_CONFLICT', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'tamper-key');
    const approved = { ...context, approvals: [approval] };
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved);
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    store.claim = async (input) => {
      const outcome = await claim(input);
      if (outcome.kind !== 'completed') return outcome;
      const sealed_json = outcome.result.sealed_json.replace('"amount":6000', '"amount":5999');
      return { ...outcome, result: { ...outcome.result, sealed_json } };
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(result.gate).toBe('idempotency');
    expectCatalog(result.sealed.model_result, 'STATUS_CONFLICT');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('the review: replays the receipt of the verified package, and refuses a record whose receipt column was changed (STATUS_CONFLICT)', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'receipt-key');
    const approved = { ...context, approvals: [approval] };
    const fresh = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(fresh.sealed.protected_audit.downstream.receipt).toBe('receipt-receipt-key');
    const replayed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(replayed.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(replayed.sealed.protected_audit.downstream.receipt).toBe('receipt-receipt-key');

    // A writer of the database changes the unverified receipt column only.
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    store.claim = async (input) => {
      const outcome = await claim(input);
      return outcome.kind === 'completed' ? { ...outcome, result: { ...outcome.result, receipt: 'receipt-forged' } } : outcome;
    };
    const forged = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(forged.gate).toBe('idempotency');
    expectCatalog(forged.sealed.model_result, 'STATUS_CONFLICT');
    expect(forged.sealed.protected_audit.downstream.receipt).toBeNull();
    const entries = (await host.stores.auditLog.query({}, { limit: 100 })).entries;
    expect(JSON.stringify(entries.map((entry) => entry.body))).not.toContain('receipt-forged');
    expect(entries.find((entry) => entry.call_id === forged.call_id && entry.kind === 'sealed_call')?.body['notes']).toEqual(['stored_result_unverifiable']);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('answers TIMEOUT_BEFORE_EXECUTE (retry_after the claim lease) when the idempotency store is down, running nothing', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'down-key');
    host.stores.idempotencyStore.claim = () => Promise.reject(new Error('connection refused'));
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expectCatalog(result.sealed.model_result, 'TIMEOUT_BEFORE_EXECUTE');
    // The claim may have applied with its answer lost: the key is free for certain only after its lease (default 30 000).
    expect(result.sealed.model_result.error?.retry_after_ms).toBe(30_000);
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('stores a downstream refusal as final for its key and replays it', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'refused-key');
    const approved = { ...context, approvals: [approval] };
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] });
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(refused.gate).toBe('handler');
    expect(errorOf(refused)).toEqual({ code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] });
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(again.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(errorOf(again)).toEqual(errorOf(refused));
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('gate: deadline', () => {
  it('answers TIMEOUT_BEFORE_EXECUTE when the turn deadline has passed, before any check runs: nothing runs, nothing is claimed', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'late-key');
    const past = host.clock.now() - 1;
    const turn = await host.dispatcher.dispatch(
      [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('create_refund_draft', BASELINE_REFUND)],
      { ...context, approvals: [approval], deadline: past },
    );
    for (const result of turn.results) {
      expect(result.gate).toBe('deadline');
      expectCatalog(result.sealed.model_result, 'TIMEOUT_BEFORE_EXECUTE');
    }
    expect(host.calls['get_order']).toBe(0);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(await host.stores.idempotencyStore.get('late-key')).toBeUndefined();
    // The key runs normally on the next attempt.
    const retry = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expect(retry.sealed.model_result.execution.delivery).toBe('fresh');
  });

  it('the review: a call aborted by the host before dispatch, or past its deadline, runs no check, sync or async (one answer: TIMEOUT_BEFORE_EXECUTE)', async () => {
    for (const mode of ['sync', 'async'] as const) {
      const host = createTestHost();
      let checks = 0;
      host.impl.get_order_check = () => {
        checks += 1;
        return mode === 'sync' ? { ok: true } : Promise.resolve({ ok: true as const });
      };
      const aborted = new AbortController();
      aborted.abort();
      const early = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { ...context, signal: aborted.signal }));
      const late = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { ...context, deadline: host.clock.now() - 1 }));
      for (const result of [early, late]) {
        expect(result.gate, mode).toBe('deadline');
        expectCatalog(result.sealed.model_result, 'TIMEOUT_BEFORE_EXECUTE');
      }
      expect(checks, mode).toBe(0);
    }
  });

  it('answers a read that hangs past its deadline with TOOL_ERROR and aborts its signal', async () => {
    const host = createTestHost({ deadlines: { kb_search: 30 } });
    let signal: AbortSignal | undefined;
    host.impl.kb_search = (input) => {
      signal = input.signal;
      return new Promise<never>(() => undefined);
    };
    const result = only(await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], context));
    expect(result.gate).toBe('handler');
    expectCatalog(result.sealed.model_result, 'TOOL_ERROR');
    expect(signal?.aborted).toBe(true);
  });

  it('hands an aborted signal to a handler that reads it only after the deadline passed', async () => {
    const host = createTestHost({ deadlines: { kb_search: 20 } });
    let late: Promise<boolean> = Promise.resolve(false);
    host.impl.kb_search = (input) => {
      // The signal is made on first read; a read after the abort must still see it aborted.
      late = new Promise((resolve) => setTimeout(() => resolve(input.signal.aborted), 60));
      return new Promise<never>(() => undefined);
    };
    const result = only(await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], context));
    expectCatalog(result.sealed.model_result, 'TOOL_ERROR');
    expect(await late).toBe(true);
  });

  it('gives handlers a real AbortSignal that survives a spread of their input', async () => {
    const host = createTestHost();
    let copied: { signal?: unknown } = {};
    host.impl.get_order = (input) => {
      copied = { ...input };
      return { kind: 'error', code: 'NOT_FOUND' };
    };
    await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context);
    expect(copied.signal).toBeInstanceOf(AbortSignal);
    expect((copied.signal as AbortSignal).aborted).toBe(false);
  });

  it('stops waiting when the host aborts the turn', async () => {
    const host = createTestHost();
    host.impl.kb_search = () => new Promise<never>(() => undefined);
    const controller = new AbortController();
    const pending = host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], { ...context, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const result = only(await pending);
    expectCatalog(result.sealed.model_result, 'TOOL_ERROR');
  });

  it('aborts the signal of a running handler when the host aborts the turn, and a turn aborted before it starts', async () => {
    const host = createTestHost();
    let seen: AbortSignal | undefined;
    host.impl.kb_search = (input) => {
      seen = input.signal;
      return new Promise<never>(() => undefined);
    };
    const controller = new AbortController();
    const pending = host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], { ...context, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    expectCatalog(only(await pending).sealed.model_result, 'TOOL_ERROR');
    expect(seen?.aborted).toBe(true);

    const aborted = new AbortController();
    aborted.abort();
    const before = only(await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], { ...context, signal: aborted.signal }));
    expect(before.gate).toBe('deadline');
    expectCatalog(before.sealed.model_result, 'TIMEOUT_BEFORE_EXECUTE');
  });
});

describe('gate: handler', () => {
  it('never lets exception text or a stack reach model_result or the audit log', async () => {
    const host = createTestHost();
    const secret = 'sk-live-4f9a2c7e-DO-NOT-LEAK';
    host.impl.get_order = () => {
      throw new Error(`upstream said: api_key=${secret}`);
    };
    host.impl.kb_search = async () => {
      throw new TypeError(`rejected with ${secret}`);
    };
    const turn = await host.dispatcher.dispatch(
      [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('kb_search', { query: 'refund' })],
      context,
    );
    for (const result of turn.results) {
      expect(result.gate).toBe('handler');
      expectCatalog(result.sealed.model_result, 'TOOL_ERROR');
      const visible = result.canonical_model_result + JSON.stringify(result.sealed);
      expect(visible).not.toContain(secret);
      expect(visible).not.toMatch(/Error|stack|at \w+ \(/);
    }
    const rows = await host.stores.tamper.readRows();
    expect(rows.map((row) => row.canonical).join('\n')).not.toContain(secret);
  });

  it('answers garbage with TOOL_ERROR: undefined, a string, an unknown kind, an error the catalog refuses', async () => {
    const host = createTestHost();
    const answers: unknown[] = [
      undefined,
      'ok',
      42,
      [],
      { kind: 'success', data: {} },
      { kind: 'error', code: 'TOOL_ERROR' },
      { kind: 'error', code: 'RATE_LIMIT' },
      { kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/order_id', rule: 'made_up' }] },
      { kind: 'error', code: 'NOT_FOUND', retryAfterMs: 5 },
      Object.defineProperty({}, 'kind', { get: () => 'data', enumerable: true }),
    ];
    for (const answer of answers) {
      host.impl.get_order = () => answer as never;
      const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
      expect([result.gate, errorOf(result).code]).toEqual(['handler', 'TOOL_ERROR']);
    }
  });

  it('passes catalogued handler errors through (RATE_LIMIT with retry_after_ms, NOT_FOUND)', async () => {
    const host = createTestHost();
    host.impl.kb_search = () => ({ kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 2000 });
    const limited = only(await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], context));
    expectCatalog(limited.sealed.model_result, 'RATE_LIMIT');
    expect(limited.sealed.model_result.error?.retry_after_ms).toBe(2000);
  });

  it('marks a write whose handler throws as unknown, so the next attempt queries status instead of writing', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'throw-key');
    const approved = { ...context, approvals: [approval] };
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      void original(input);
      throw new Error('socket hang up after commit');
    };
    const failed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expectCatalog(failed.sealed.model_result, 'TOOL_ERROR');
    expect((await host.stores.idempotencyStore.get('throw-key'))?.state).toBe('unknown');
    const next = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], approved));
    expect(next.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('gate: output contract', () => {
  it('refuses a top-level status injected next to data, and an accessor it never invokes', async () => {
    const host = createTestHost();
    const original = host.impl.get_order;
    host.impl.get_order = async (input) => ({ ...(await original(input)), status: 'succeeded' }) as never;
    const injected = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    expect(injected.gate).toBe('output_contract');
    expectCatalog(injected.sealed.model_result, 'OUTPUT_CONTRACT_VIOLATION');
    expect(injected.violations.length).toBeGreaterThan(0);
    expect(injected.sealed.protected_audit.redactions).toContainEqual({ path: '', reason: 'output_contract_violation' });

    let invoked = false;
    host.impl.get_order = async (input) => {
      const outcome = (await original(input)) as object;
      return Object.defineProperty({ ...outcome }, 'observed_at', {
        enumerable: true,
        get: () => {
          invoked = true;
          return host.iso();
        },
      }) as never;
    };
    const accessor = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    expectCatalog(accessor.sealed.model_result, 'OUTPUT_CONTRACT_VIOLATION');
    expect(invoked).toBe(false);
  });

  it('marks a write whose output breaks its contract as unknown (it may have happened)', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'bad-output-key');
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = async (input) => ({ ...(await original(input)), status: 'succeeded' }) as never;
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expectCatalog(result.sealed.model_result, 'OUTPUT_CONTRACT_VIOLATION');
    expect((await host.stores.idempotencyStore.get('bad-output-key'))?.state).toBe('unknown');
  });
});

describe('audit', () => {
  it('appends one hash-chained sealed_call entry per call, after sealing, and the chain verifies', async () => {
    const host = createTestHost();
    await host.dispatcher.dispatch(
      [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('get_order', { order_id: 'ORDER-M9' }), toolCall('nope', {})],
      context,
    );
    const verification = await host.stores.auditLog.verifyChain();
    expect(verification).toMatchObject({ ok: true, checked: 3 });
    const rows = await host.stores.tamper.readRows();
    expect(rows.map((row) => row.kind)).toEqual(['sealed_call', 'sealed_call', 'sealed_call']);
  });

  it('withholds the result (TOOL_ERROR, gate audit) when the audit log refuses the entry', async () => {
    const host = createTestHost();
    host.stores.auditLog.append = () => Promise.reject(new Error('disk full'));
    const call = toolCall('get_order', { order_id: 'ORDER-C7' });
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(result.gate).toBe('audit');
    expect(result.audit_entry).toBeNull();
    expectCatalog(result.sealed.model_result, 'TOOL_ERROR');
    expect(result.canonical_model_result).not.toContain('ORDER-C7');
    expectVerified(turn, [call]);
  });
});

describe('a turn of parallel calls', () => {
  it('runs the calls concurrently, seals each on its own and correlates them by call id', async () => {
    const host = createTestHost({ deadlines: { get_order: 2_000, kb_search: 2_000 } });
    // get_order waits for kb_search to start: run one after the other, this would time out.
    let kbStarted: () => void = () => undefined;
    const kbHasStarted = new Promise<void>((resolve) => {
      kbStarted = resolve;
    });
    const getOrder = host.impl.get_order;
    const kbSearch = host.impl.kb_search;
    host.impl.get_order = async (input) => {
      await kbHasStarted;
      return getOrder(input);
    };
    host.impl.kb_search = (input) => {
      kbStarted();
      return kbSearch(input);
    };
    const calls = [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('kb_search', { query: 'refund' })];
    const turn = await host.dispatcher.dispatch(calls, context);
    expect(turn.results.map((result) => [result.call_id, result.tool_name, result.sealed.model_result.status])).toEqual([
      [calls[0]?.call_id, 'get_order', 'succeeded'],
      [calls[1]?.call_id, 'kb_search', 'succeeded'],
    ]);
    expect(turn.sealed).toEqual(turn.results.map((result) => result.sealed));
    const operations = new Set(turn.results.map((result) => result.sealed.protected_audit.downstream.operation_id));
    expect(operations.size).toBe(2);
    expectVerified(turn, calls);
  });

  it('refuses a repeated call id in one turn as a host bug', async () => {
    const host = createTestHost();
    const call = toolCall('get_order', { order_id: 'ORDER-C7' });
    await expect(host.dispatcher.dispatch([call, call], context)).rejects.toThrow(/call id appears twice/);
  });

  it.each([
    ['provider', { provider: 'OpenAI' }],
    ['api_family', { api_family: 'generateContent' }],
    ['adapter_revision', { adapter_revision: 'r'.repeat(65) }],
  ])(
    'the review: refuses a call whose %s the protected_audit schema refuses (TypeError), before any write runs or anything is audited',
    async (field, change) => {
      // Sealing refuses such a call too, but only after the handler: a write ran, and its audit entry was never appended.
      const host = createTestHost();
      const approval = await approveBaseline(host, `approval-key-schema-${field}`);
      const call = { ...toolCall('create_refund_draft', BASELINE_REFUND), ...change };
      const headBefore = await host.stores.auditLog.head();
      const error = await host.dispatcher.dispatch([call], { ...context, approvals: [approval] }).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toMatch(new RegExp(`^dispatch: call\\.${field} breaks the protected_audit schema`));
      expect(host.calls['create_refund_draft']).toBe(0);
      expect((await host.stores.auditLog.query({ kind: 'write_started' }, { limit: 5 })).entries).toEqual([]);
      expect(await host.stores.auditLog.head()).toEqual(headBefore);
      expect(await host.stores.auditLog.head()).toEqual(headBefore);
    },
  );

  it.each([
    ['tenant_id', { tenant_id: 'cedar\ud800' }, /context\.principal\.tenant_id must be 1 to 128 characters without lone surrogates/],
    ['subject_id', { subject_id: '\udc00drafter' }, /context\.principal\.subject_id must be 1 to 128 characters without lone surrogates/],
    ['a role', { roles: ['support_drafter', 'admin\ud800'] }, /context\.principal\.roles must be at most 32 strings without lone surrogates/],
  ])('the review: refuses a principal whose %s has a lone surrogate (TypeError), before anything runs or is audited', async (_name, change, message) => {
    const host = createTestHost();
    const calls = [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('kb_search', { query: 'refund' })];
    const principal = { ...CEDAR_DRAFTER, ...change };
    const error = await host.dispatcher.dispatch(calls, { principal }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(message);
    expect(host.calls).toEqual({ get_order: 0, kb_search: 0, create_refund_draft: 0 });
    expect(await host.stores.auditLog.head()).toBeNull();
  });

  it('review 6: counts principal ids in characters, as the PrincipalContext schema does (an id of 100 astral characters is 200 UTF-16 units)', async () => {
    const tree = '\u{1F332}';
    const host = createTestHost();
    for (const change of [{ tenant_id: tree.repeat(100) }, { subject_id: tree.repeat(128) }]) {
      const turn = await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], { principal: { ...CEDAR_DRAFTER, ...change } });
      expect(only(turn).sealed.model_result.status).toBe('succeeded');
    }
    expect(host.calls['kb_search']).toBe(2);
    for (const [name, change] of [
      ['tenant_id', { tenant_id: tree.repeat(129) }],
      ['subject_id', { subject_id: `${tree.repeat(64)}${'s'.repeat(65)}` }],
      ['tenant_id', { tenant_id: 't'.repeat(129) }],
    ] as const) {
      const error = await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], { principal: { ...CEDAR_DRAFTER, ...change } }).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(`dispatch: context.principal.${name} must be 1 to 128 characters without lone surrogates`);
    }
    expect(host.calls['kb_search']).toBe(2);
  });

  it('keeps the host principal\'s other fields for checks, handlers and the proposal\'s facts source, as the proposal validator does', async () => {
    // Review: the dispatcher's copy kept only tenant_id, subject_id and roles, so a check written as
    // "deny if suspended" let a suspended principal through.
    const host = createTestHost();
    const seen: unknown[] = [];
    const check = host.impl.get_order_check;
    host.impl.get_order_check = (input) => {
      seen.push(input.principal);
      return (input.principal as { suspended?: unknown }).suspended === true ? { ok: false, code: 'NOT_FOUND' } : check(input);
    };
    // Extra fields on a host's own principal type: PrincipalContext is what the dispatcher requires.
    const suspendedDrafter = { ...CEDAR_DRAFTER, suspended: true };
    const activeDrafter = { ...CEDAR_DRAFTER, suspended: false };
    const suspended = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal: suspendedDrafter }));
    expectCatalog(suspended.sealed.model_result, 'NOT_FOUND');
    expect(host.calls['get_order']).toBe(0);
    expect(seen).toEqual([{ ...CEDAR_DRAFTER, suspended: true }]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    const active = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal: activeDrafter }));
    expect(active.sealed.model_result.status).toBe('succeeded');
    // The proposal's facts source receives the same copy: a suspended drafter sees no order.
    const loadOrderSaw: unknown[] = [];
    const proposalHost = createTestHost({
      tools: (tools) =>
        tools.map((tool) => {
          if (tool.proposal === undefined) return tool;
          const { validator } = tool.proposal;
          const watched: typeof validator = {
            ...validator,
            validate: (actor, input) => {
              loadOrderSaw.push(actor);
              return validator.validate(actor, input);
            },
            recheckCurrent: (actor, decision) => validator.recheckCurrent(actor, decision),
            recheck: (decision, facts, actor) => validator.recheck(decision, facts, actor),
          };
          return { ...tool, proposal: { ...tool.proposal, validator: watched } };
        }),
    });
    const regional = { ...CEDAR_DRAFTER, region: 'eu' };
    await proposalHost.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: regional });
    expect(loadOrderSaw).toEqual([{ ...CEDAR_DRAFTER, region: 'eu' }]);
  });

  it('gives every reader a deep-frozen copy of the principal\'s nested fields, never the host\'s object', async () => {
    const host = createTestHost();
    const account = { suspended: false };
    const principal = { ...CEDAR_DRAFTER, account };
    const seen: { account: unknown }[] = [];
    const original = host.impl.get_order;
    host.impl.get_order = (input) => {
      const given = input.principal as unknown as { account: { suspended: boolean } };
      seen.push(given);
      // A handler that tries to lift a flag for the checks after it, or for the host's next turn.
      expect(() => {
        given.account.suspended = true;
      }).toThrow(TypeError);
      return original(input);
    };
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal }));
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(seen[0]?.account).toEqual({ suspended: false });
    expect(seen[0]?.account).not.toBe(account);
    expect(account.suspended).toBe(false);
  });

  it('refuses a principal that is a class instance, or a field that is not JSON data, before any call runs', async () => {
    const host = createTestHost();
    class Session {
      readonly tenant_id = 'cedar';
      readonly subject_id = 'support-drafter-1';
      readonly roles = ['support_drafter'];
      get suspended(): boolean {
        return true;
      }
    }
    await expect(host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal: new Session() as unknown as PrincipalContext })).rejects.toThrow(
      /^dispatch: context\.principal must be a plain object/,
    );
    const dated = { ...CEDAR_DRAFTER, since: new Date(0) };
    await expect(host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal: dated as unknown as PrincipalContext })).rejects.toThrow(
      /^dispatch: context\.principal\.since must be JSON data/,
    );
    expect(host.calls['get_order']).toBe(0);
    expect(await host.stores.auditLog.head()).toBeNull();
  });

  it('refuses a principal field that is an accessor, before any call runs', async () => {
    const host = createTestHost();
    const flag = vi.fn(() => false);
    const principal = Object.defineProperty({ ...CEDAR_DRAFTER }, 'suspended', { get: flag, enumerable: true });
    await expect(host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal })).rejects.toThrow(
      /^dispatch: context\.principal\.suspended must be a data field/,
    );
    expect(flag).not.toHaveBeenCalled();
    expect(host.calls['get_order']).toBe(0);
    expect(await host.stores.auditLog.head()).toBeNull();
  });

  it('requires an authenticated principal in the context', async () => {
    const host = createTestHost();
    const call = toolCall('get_order', { order_id: 'ORDER-C7' });
    await expect(host.dispatcher.dispatch([call], { principal: { tenant_id: '', subject_id: 'x', roles: [] } })).rejects.toThrow(
      /tenant_id/,
    );
  });
});

describe('gate: recheck', () => {
  it('rechecks the proposal against current facts right before the write, and releases the claim when they changed', async () => {
    const host = createTestHost();
    const approval = await approveBaseline(host, 'recheck-key');
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    // The order's state changes between the trusted checks and the execution.
    store.claim = async (input) => {
      host.facts.state = 'revoked';
      return claim(input);
    };
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }),
    );
    expect(result.gate).toBe('recheck');
    expectCatalog(result.sealed.model_result, 'STATE_CHANGED');
    expect(result.decision_record).toMatchObject({ stage: 'recheck', decision: 'refresh_required' });
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await store.get('recheck-key'))?.state).toBe('released');
  });
});
