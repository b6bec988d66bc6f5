// Every executed call leaves an audit entry (security review, finding F1): ids the stores would
// refuse never reach a gate, a handler cannot inflate the audit body past the store's limit, and a
// refused full entry of an executed call is retried once with a minimal one.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { createMemoryStores, ManualClock, type AuditEntry, type AuditEntryInput } from '@toolseal/audit';
import type { JsonObject, ToolCall } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { createToolRegistry } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, START, toolCall, type TestHost } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';

const context = { principal: CEDAR_DRAFTER };

async function auditBodies(host: Pick<TestHost, 'stores'>): Promise<JsonObject[]> {
  const rows = await host.stores.tamper.readRows();
  return rows.map((row) => (JSON.parse(row.canonical) as { body: JsonObject }).body);
}

/** A write without approval, so one dispatch runs the handler. */
function writeHost(): TestHost {
  return createTestHost({
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

describe('ids the stores would refuse never reach a gate', () => {
  const adapter = createOpenAIResponsesAdapter();

  it('the adapter refuses a call id with NUL (the review: the write ran, then its audit entry was refused)', () => {
    const parsed = adapter.parseToolCalls({
      id: 'resp_1',
      output: [
        { type: 'function_call', call_id: 'call_\u0000x', name: 'create_refund_draft', arguments: JSON.stringify(BASELINE_REFUND), status: 'completed' },
      ],
    } as never);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe('MALFORMED_TOOL_CALL');
    expect(parsed.error.reasons).toEqual([{ field: '', rule: 'malformed_response' }]);
  });

  it.each([
    ['call_id', 'call_\u0000x'],
    ['call_id', 'call_\u001b'],
    ['call_id', 'call_\u0085'],
    ['call_id', 'call_\ud800'],
    ['call_id', 'c'.repeat(257)],
    ['response_id', 'resp_\u0000'],
    ['provider', 'openai\u0000'],
    ['adapter_revision', 'openai-responses-v1\n'],
    ['tool_name', 'create_refund_draft\u0000'],
    // Review: what a provider chose, shown as something else in the audit log.
    ['call_id', 'call_1\u202e'],
    ['call_id', 'call_1\u{E0031}'],
    ['response_id', '\ufeffresp_1'],
    ['tool_name', 'create\u200b_refund_draft'],
  ])('the dispatcher refuses a hand-made call whose %s is %j, before any gate (nothing runs, nothing audited)', async (field, value) => {
    const host = writeHost();
    const call = { ...toolCall('create_refund_draft', BASELINE_REFUND), [field]: value } as ToolCall;
    await expect(host.dispatcher.dispatch([call, toolCall('get_order', { order_id: 'ORDER-C7' })], context)).rejects.toThrow(TypeError);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(host.calls['get_order']).toBe(0);
    expect(await host.stores.auditLog.head()).toBeNull();
  });

  it('still seals an empty tool name as UNKNOWN_TOOL (the model chose it) and audits it', async () => {
    const host = writeHost();
    const result = only(await host.dispatcher.dispatch([toolCall('', {})], context));
    expect(result.sealed.model_result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.audit_entry).toMatchObject({ sequence: 1, body: 'full' });
  });

  it('refuses an operation id with a control character from the host', async () => {
    const host = createTestHost({ options: { operationId: () => 'op-\u0000' } });
    await expect(host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context)).rejects.toThrow(TypeError);
    expect(host.calls['get_order']).toBe(0);
  });
});

describe('a hostile output cannot push an executed write out of the audit log', () => {
  it('the review: a flood of nested sensitive keys is refused with bounded violations, and the write is audited', async () => {
    const contract = {
      tool_name: 'create_ticket',
      effect: 'write' as const,
      input_revision: 'i1',
      output_revision: 'o1',
      effect_revision: 'e1',
      handler_revision: 'h1',
      producer_revision: 'p1',
      policy_revision: 'x1',
    };
    const registry = createToolRegistry([
      {
        contract,
        source_label: 'tickets',
        input_schema: { type: 'object', additionalProperties: false, properties: { title: { type: 'string', maxLength: 50 } } },
        output_schema: { type: 'object', additionalProperties: false, required: ['ticket_ref'], properties: { ticket_ref: { type: 'string', maxLength: 20 } } },
        resource_revision: { pattern: '^r[0-9]$' },
      },
    ]);
    const clock = new ManualClock(START);
    const digester = createDigester({ key: new Uint8Array(32).fill(3) });
    const stores = createMemoryStores({ clock, digester });
    let executed = 0;
    // What a compromised downstream returns: 1,280 `token` keys below 64-character names, twelve deep.
    const key = (index: number): string => `k${index}`.padEnd(64, 'x');
    const leafParent: JsonObject = {};
    for (let index = 0; index < 256; index++) leafParent[key(index)] = { token: 1 };
    let branch: JsonObject = {};
    for (let index = 0; index < 5; index++) branch[key(index)] = leafParent;
    for (let depth = 0; depth < 12; depth++) branch = { [key(depth)]: branch };
    const wide: JsonObject = {};
    for (let index = 0; index < 250; index++) wide[`f${index}`] = { token: 1 };
    const dispatcher = createDispatcher({
      registry,
      digester,
      clock,
      stores,
      tools: [
        {
          name: 'create_ticket',
          approval: 'none',
          handler: () => {
            executed++;
            return { kind: 'data', data: { ticket_ref: 'T-1', ...branch, wide }, resource_revision: 'r1', observed_at: '2026-07-19T00:00:00Z' };
          },
        },
      ],
    });
    const call = toolCall('create_ticket', { title: 'x' });
    const result = only(await dispatcher.dispatch([call], { principal: { tenant_id: 't', subject_id: 's', roles: [] } }));
    expect(executed).toBe(1);
    expect(result.gate).toBe('output_contract');
    expect(result.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    // The scan stops at as many hits as can be reported (64, all keys of the first shared object):
    // one violation for that object, at the longest place the output schema declares (the keys are
    // the handler's, never echoed), and a last one saying there may be more.
    expect(result.violations).toEqual([
      { rule: 'additional_properties', path: '/data' },
      { rule: 'sensitive_key', path: '/data' },
      { rule: 'too_many_violations', path: '' },
    ]);
    // Entry 1 is the write's `write_started`, appended before its handler ran.
    expect(result.audit_entry).toMatchObject({ sequence: 2, body: 'full' });
    const rows = await stores.tamper.readRows();
    expect(rows.map((row) => row.kind)).toEqual(['write_started', 'sealed_call']);
    expect(rows[1]?.canonical.length).toBeLessThan(64 * 1024);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2 });
    // Refused output of a started write: its outcome is unknown, never replayed as done.
    // The key of a write without approval: the intent (README), keyed by the host's digester.
    const intentKey = `intent-${digester.digestTagged('toolseal.dispatcher.intent_key.v1', {
      tenant_id: 't',
      subject_id: 's',
      tool_name: 'create_ticket',
      arguments: { title: 'x' },
    })}`;
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe(intentKey);
    const record = await stores.idempotencyStore.get(intentKey);
    expect(record?.state).toBe('unknown');
  });
});

describe('a refused full audit entry of an executed call is retried once with a minimal body', () => {
  /** Makes the log refuse every full body (as a store does over its size limit); minimal ones pass. */
  function refuseFullBodies(host: TestHost): AuditEntryInput[] {
    const attempts: AuditEntryInput[] = [];
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) => {
      if (input.kind !== 'sealed_call') return append(input);
      attempts.push(input);
      if (input.body['audit_body'] !== 'minimal') return Promise.reject(new Error('body exceeds the store limit'));
      return append(input);
    };
    return attempts;
  }

  it('an executed write: the model gets the real result, bound by the minimal entry', async () => {
    const host = writeHost();
    const attempts = refuseFullBodies(host);
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], context);
    const result = only(turn);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(attempts).toHaveLength(2);
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result.status).toBe('succeeded');
    // Entry 1 is the write's `write_started` (small: the log took it).
    expect(result.audit_entry).toMatchObject({ sequence: 2, body: 'minimal' });
    expect(turn.verify(result.sealed, call)).toEqual({ ok: true });

    const body = (await auditBodies(host)).at(-1);
    const audit = result.sealed.protected_audit;
    expect(body).toEqual({
      audit_body: 'minimal',
      gate: 'sealed',
      status: 'succeeded',
      error_code: null,
      delivery: 'fresh',
      principal_ref: audit.principal_ref,
      provider_context: audit.provider_context,
      tool_contract: audit.tool_contract,
      downstream: audit.downstream,
      binding: audit.binding,
    });
    expect(audit.downstream.receipt).toMatch(/^receipt-intent-[0-9a-f]{64}$/);
    const rows = await host.stores.tamper.readRows();
    for (const row of rows) {
      expect(row).toMatchObject({ call_id: call.call_id, operation_id: audit.downstream.operation_id, idempotency_key: audit.downstream.idempotency_key });
    }
    expect(rows.map((row) => row.kind)).toEqual(['write_started', 'sealed_call']);
    expect(JSON.parse(rows[0]?.canonical ?? '{}').body).toEqual({
      principal_ref: audit.principal_ref,
      request_sha256: audit.binding.request_sha256,
      tool_name: 'create_refund_draft',
    });
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2 });
  });

  it('an executed read is retried the same way', async () => {
    const host = createTestHost();
    const attempts = refuseFullBodies(host);
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    expect(attempts).toHaveLength(2);
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(result.audit_entry?.body).toBe('minimal');
  });

  it('a call refused before any handler ran is not retried: it is withheld (TOOL_ERROR)', async () => {
    const host = createTestHost();
    const attempts = refuseFullBodies(host);
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-M9' })], context));
    expect(host.calls['get_order']).toBe(0);
    expect(attempts).toHaveLength(1);
    expect(result.gate).toBe('audit');
    expect(result.audit_entry).toBeNull();
    expect(result.sealed.model_result.error?.code).toBe('TOOL_ERROR');
  });

  it('when the minimal append fails too, the executed write is withheld (TOOL_ERROR) and its record still replays', async () => {
    const host = writeHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    let attempts = 0;
    // The log fails once the write has run (its `write_started` entry went in).
    host.stores.auditLog.append = (input) => {
      if (input.kind !== 'sealed_call') return append(input);
      attempts++;
      return Promise.reject(new Error('log down'));
    };
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(attempts).toBe(2);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(first.gate).toBe('audit');
    expect(first.audit_entry).toBeNull();
    expect(first.sealed.model_result.error?.code).toBe('TOOL_ERROR');

    // The log is back: the same intent replays the stored real result, and is audited.
    host.stores.auditLog.append = append;
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(again.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { delivery: 'local_replay' } });
    expect(again.audit_entry).toMatchObject({ sequence: 2, body: 'full' });
  });

  it('the review: the withheld result, read from the idempotency store, does not verify for the call; the answer does', async () => {
    const host = writeHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) => (input.kind === 'sealed_call' ? Promise.reject(new Error('log down')) : append(input));
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], context);
    const answered = only(turn);
    expect(answered.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    // The real result sits in the write's record, sealed genuinely for this very call.
    const record = await host.stores.idempotencyStore.get(answered.sealed.protected_audit.downstream.idempotency_key ?? '');
    const stored = JSON.parse(record?.result?.sealed_json ?? 'null') as typeof answered.sealed;
    expect(stored.model_result.status).toBe('succeeded');
    expect(turn.verify(answered.sealed, call, {})).toEqual({ ok: true });
    expect(turn.verify(stored, call, {})).toEqual({ ok: false, reasons: ['result_digest'] });
    // So the adapter refuses to send it in place of the answer.
    const formatted = createOpenAIResponsesAdapter().formatToolResults({
      calls: [call],
      results: [stored],
      verify: turn.verify,
      options: { continuation: 'previous_response_id' },
    });
    expect(formatted.ok).toBe(false);
  });

  it('the review: a completed record holding another genuine package of its key (not one completing stores) is not replayed', async () => {
    const host = writeHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    // The first attempt cannot announce the write: TIMEOUT_BEFORE_EXECUTE, sealed under the key.
    host.stores.auditLog.append = (input) => (input.kind === 'write_started' ? Promise.reject(new Error('log down')) : append(input));
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(refused.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    host.stores.auditLog.append = append;
    const written = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(written.sealed.model_result.status).toBe('succeeded');
    const key = written.sealed.protected_audit.downstream.idempotency_key;
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBe(key);
    const replayed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(replayed.sealed.model_result.execution.delivery).toBe('local_replay');

    // A writer of the database puts either package in the completed record, with its receipt.
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    for (const swapped of [refused.sealed, replayed.sealed]) {
      store.claim = async (input) => {
        const outcome = await claim(input);
        if (outcome.kind !== 'completed') return outcome;
        return { ...outcome, result: { ...outcome.result, sealed_json: canonicalize(swapped), receipt: swapped.protected_audit.downstream.receipt } };
      };
      const answer = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
      expect(answer.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    }
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('the host aborting while the announcement hangs ends the call at once (gate deadline), nothing run', async () => {
    const host = createTestHost({
      options: { storeTimeoutMs: 60_000 },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) => (input.kind === 'write_started' ? new Promise<never>(() => undefined) : append(input));
    const controller = new AbortController();
    const pending = host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const result = only(await pending);
    expect(result.gate).toBe('deadline');
    expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(host.calls['create_refund_draft']).toBe(0);
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['notes']).toEqual(['aborted_during_write_announcement']);
  });

  it('an announcement the log answers without naming an entry counts as refused: the write does not start', async () => {
    const host = writeHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) => (input.kind === 'write_started' ? Promise.resolve({} as unknown as AuditEntry) : append(input));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(result.gate).toBe('idempotency');
    expect(result.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', retry_after_ms: 1_000 });
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['notes']).toEqual(['audit_unavailable_before_write']);
  });

  it('an approved write announces its approval with it', async () => {
    const host = createTestHost();
    const asked = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    const request_sha256 = asked.approval_request?.request_sha256 as string;
    const approval = { request_sha256, tool_name: 'create_refund_draft', idempotency_key: 'appr-1', approved_by: 'supervisor-1', expires_at: host.clock.now() + 60_000 };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(result.gate).toBe('sealed');
    const started = (await host.stores.auditLog.query({ kind: 'write_started' }, { limit: 10 })).entries;
    expect(started.map((entry) => [entry.call_id, entry.idempotency_key])).toEqual([[result.call_id, 'appr-1']]);
    expect(started[0]?.body).toEqual({
      approval: { approved_by: 'supervisor-1', expires_at: approval.expires_at, request_sha256 },
      principal_ref: result.sealed.protected_audit.principal_ref,
      request_sha256,
      tool_name: 'create_refund_draft',
    });
  });

  it('a log that is down before the write runs: the handler never starts, the key is given back', async () => {
    const host = writeHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    const kinds: string[] = [];
    host.stores.auditLog.append = (input) => {
      kinds.push(input.kind);
      return Promise.reject(new Error('log down'));
    };
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(host.calls['create_refund_draft']).toBe(0);
    // The refusal itself cannot be audited either: withheld as every unaudited answer is.
    expect(first.gate).toBe('audit');
    expect(first.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(kinds).toEqual(['write_started', 'sealed_call']);
    const key = first.sealed.protected_audit.downstream.idempotency_key as string;
    expect((await host.stores.idempotencyStore.get(key))?.state).toBe('released');

    // The log is back: the same intent runs, once, announced first.
    host.stores.auditLog.append = append;
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(again.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await host.stores.tamper.readRows()).map((row) => row.kind)).toEqual(['write_started', 'sealed_call']);
  });
});

describe('an append that answers without naming an entry is taken as a failure (fuzzing review)', () => {
  for (const [label, garbage] of [
    ['undefined', undefined],
    ['an empty object', {}],
    ['a sequence of 0', { sequence: 0, entry_hash: 'a'.repeat(64) }],
    ['a hash that is not 64 hex', { sequence: 1, entry_hash: 'not-a-digest' }],
  ] as const) {
    it(`${label}: an executed read retries with the minimal body, and is withheld when that answers the same`, async () => {
      const host = createTestHost();
      let attempts = 0;
      host.stores.auditLog.append = () => {
        attempts++;
        return Promise.resolve(garbage as unknown as AuditEntry);
      };
      const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
      expect(host.calls['get_order']).toBe(1);
      expect(attempts).toBe(2);
      expect(result.gate).toBe('audit');
      expect(result.audit_entry).toBeNull();
      expect(result.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    });
  }

  it('a well-formed answer to the minimal retry is used', async () => {
    const host = createTestHost();
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) =>
      input.body['audit_body'] === 'minimal' ? append(input) : Promise.resolve({} as unknown as AuditEntry);
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(result.audit_entry).toMatchObject({ sequence: 1, body: 'minimal' });
  });
});

describe('the audit entry embeds protected_audit as sealed', () => {
  it('stores the projection exactly as canonicalize writes it, for a read, a write and a refusal', async () => {
    const host = writeHost();
    const turn = await host.dispatcher.dispatch(
      [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('create_refund_draft', BASELINE_REFUND), toolCall('no_such_tool', {})],
      context,
    );
    const rows = await host.stores.tamper.readRows();
    // Three calls' entries and the write's `write_started`.
    expect(rows).toHaveLength(4);
    for (const result of turn.results) {
      // Calls run concurrently: rows are matched by call id, not by position.
      const row = rows.find((candidate) => candidate.call_id === result.call_id && candidate.kind === 'sealed_call');
      if (row === undefined) throw new Error(`no audit row for ${result.call_id}`);
      const record = JSON.parse(row.canonical) as { body: JsonObject };
      expect(row.canonical).toBe(canonicalize(record));
      expect(row.canonical).toContain(`"protected_audit":${canonicalize(result.sealed.protected_audit)}`);
      expect(record.body['protected_audit']).toEqual(result.sealed.protected_audit);
    }
    expect(turn.results.map((call) => call.sealed.model_result.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
  });
});
