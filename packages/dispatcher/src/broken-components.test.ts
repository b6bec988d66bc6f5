// A trusted component that answers outside its contract holds its own call (README: a broken
// trusted facts source means the facts are not available, FACTS_UNAVAILABLE, nothing started),
// and no call's unexpected failure can take the sealed, audited results of the turn's other calls
// with it (`Dispatcher.dispatch` never rejects for what a component did): not a call object whose
// getters change their answer, not a clock that breaks after start-up.
import { ManualClock } from '@toolseal/audit';
import { createDigester, type Digester } from '@toolseal/digests';
import type { ProposalValidator } from '@toolseal/proposal';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, START, TEST_KEY, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };

/** The refund write without approval, its proposal validator wrapped by `wrap`. */
function hostWithValidator(wrap: (original: ProposalValidator<unknown, unknown>) => ProposalValidator<unknown, unknown>): TestHost {
  return createTestHost({
    tools: (tools) =>
      tools.map((tool) =>
        tool.name === 'create_refund_draft' && tool.proposal !== undefined
          ? { ...tool, approval: 'none' as const, proposal: { ...tool.proposal, validator: wrap(tool.proposal.validator) } }
          : tool,
      ),
  });
}

async function auditedGates(host: TestHost): Promise<Record<string, unknown>> {
  const entries = (await host.stores.auditLog.query({ kind: 'sealed_call' }, { limit: 100 })).entries;
  return Object.fromEntries(entries.map((entry) => [entry.call_id, entry.body['gate']]));
}

const SMALLER = { ...BASELINE_REFUND, amount: 4500 };

/** Answers that break the validator's contract, each given for `amount: 4500` only. */
const MALFORMED: [string, unknown][] = [
  ['ok:false without an error', { ok: false }],
  ['an error outside the catalog', { ok: false, error: { code: 'REFUND_DENIED', reasons: [] } }],
  ['a catalog code no proposal gate gives', { ok: false, error: { code: 'OUTCOME_UNKNOWN', reasons: [] } }],
  ['reasons the catalog refuses for the code', { ok: false, error: { code: 'NOT_FOUND', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] } }],
  ['reasons that are not a list', { ok: false, error: { code: 'RULE_REJECTED', reasons: 'amount' } }],
  ['ok that is not a boolean', { ok: 'yes' }],
  ['null', null],
  ['a getter that throws', Object.defineProperty({}, 'ok', { get: () => { throw new Error('boom'); } })],
];

describe('a proposal validator that answers outside its contract', () => {
  it.each(MALFORMED)('the review: %s holds that call (FACTS_UNAVAILABLE), audited; a parallel committed write keeps its result', async (_name, answer) => {
    const host = hostWithValidator((original) => ({
      ...original,
      validate: async (actor, input) => {
        const value = input.format === 'json_value' ? (input.value as { amount?: unknown }) : null;
        if (value?.amount === 4500) return answer as Awaited<ReturnType<typeof original.validate>>;
        return original.validate(actor, input);
      },
    }));
    const good = toolCall('create_refund_draft', BASELINE_REFUND);
    const bad = toolCall('create_refund_draft', SMALLER);
    const turn = await host.dispatcher.dispatch([good, bad], context);
    const [goodResult, badResult] = turn.results as [DispatchedCall, DispatchedCall];
    expect(goodResult.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { outcome: 'committed' } });
    expect(badResult.gate).toBe('trusted_checks');
    expect(badResult.sealed.model_result.error).toMatchObject({ code: 'FACTS_UNAVAILABLE', recovery: 'hold', reasons: [] });
    expect(badResult.decision_record).toBeNull();
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(await auditedGates(host)).toEqual({ [good.call_id]: 'sealed', [bad.call_id]: 'trusted_checks' });
    const badEntry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: bad.call_id }, { limit: 1 })).entries[0];
    expect(badEntry?.body['notes']).toEqual(['proposal_validator_malformed']);
    // The two calls' entries and the write's `write_started` entry before its handler ran.
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
  });

  it('a decision record that is not JSON (a cycle) holds the call too', async () => {
    const host = hostWithValidator((original) => ({
      ...original,
      validate: async (actor, input) => {
        const decision = await original.validate(actor, input);
        const record: Record<string, unknown> = { ...decision.record };
        record['self'] = record;
        return { ...decision, record } as unknown as typeof decision;
      },
    }));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.error?.code).toBe('FACTS_UNAVAILABLE');
    expect(result.audit_entry).toMatchObject({ body: 'full' });
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('a malformed recheck releases the claim and holds the call, running nothing', async () => {
    const host = hostWithValidator((original) => ({ ...original, recheckCurrent: async () => ({ ok: false }) as never }));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('recheck');
    expect(result.sealed.model_result.error?.code).toBe('FACTS_UNAVAILABLE');
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await host.stores.idempotencyStore.get(result.sealed.protected_audit.downstream.idempotency_key ?? ''))?.state).toBe('released');
  });

  it('a well-formed refusal still refuses with its code, reasons and a private copy of its record', async () => {
    const host = hostWithValidator((original) => original);
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', { ...BASELINE_REFUND, amount: 8000 })], context));
    expect(result.sealed.model_result.error).toMatchObject({ code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] });
    expect(result.decision_record).toMatchObject({ stage: 'validate', decision: 'rejected_rule', code: 'RULE_REJECTED' });
    expect(Object.isFrozen(result.decision_record)).toBe(true);
  });
});

describe('an exception no reader catches', () => {
  it('answers TOOL_ERROR at gate internal for that call only, audited; the other calls keep their results', async () => {
    const host = createTestHost({
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    // A third-party store answering far outside its contract: no claim outcome at all.
    host.stores.idempotencyStore.claim = async () => undefined as never;
    const read = toolCall('get_order', { order_id: 'ORDER-C7' });
    const write = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([read, write], context);
    const [readResult, writeResult] = turn.results as [DispatchedCall, DispatchedCall];
    expect(readResult.sealed.model_result.status).toBe('succeeded');
    expect(writeResult.gate).toBe('internal');
    expect(writeResult.sealed.model_result.error).toMatchObject({ code: 'TOOL_ERROR', recovery: 'human_review' });
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(await auditedGates(host)).toEqual({ [read.call_id]: 'sealed', [write.call_id]: 'internal' });
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: write.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['notes']).toEqual(['dispatcher_unexpected_error']);
    expect(turn.verify(writeResult.sealed, write)).toEqual({ ok: true });
  });

  it("a host operationId() that breaks rejects the turn before any of its calls runs", async () => {
    let made = 0;
    const host = createTestHost({ options: { operationId: () => (++made === 2 ? 'op-\u0000' : `op-${made}`) } });
    const calls = [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('kb_search', { query: 'refund' })];
    await expect(host.dispatcher.dispatch(calls, context)).rejects.toThrow(TypeError);
    expect(host.calls).toEqual({ get_order: 0, kb_search: 0, create_refund_draft: 0 });
    expect(await host.stores.auditLog.head()).toBeNull();
  });
});

describe('a call or a clock that changes after the turn was checked', () => {
  it('the review: reads every call field once into a private frozen copy; a getter that later answers a lone surrogate changes nothing', async () => {
    const host = createTestHost({
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const write = toolCall('create_refund_draft', BASELINE_REFUND);
    const plain = toolCall('get_order', { order_id: 'ORDER-C7' });
    const reads: Record<string, number> = {};
    // Valid when checked, a lone surrogate on every later read (no digest or store accepts one).
    const shifty = {} as typeof plain;
    for (const [field, value] of Object.entries(plain)) {
      Object.defineProperty(shifty, field, {
        enumerable: true,
        get: () => {
          reads[field] = (reads[field] ?? 0) + 1;
          return reads[field] === 1 || field === 'arguments' ? value : 'bad\ud800';
        },
      });
    }
    const turn = await host.dispatcher.dispatch([write, shifty], context);
    expect(reads).toEqual({ provider: 1, api_family: 1, adapter_revision: 1, response_id: 1, call_id: 1, tool_name: 1, arguments: 1 });
    const [writeResult, readResult] = turn.results as [DispatchedCall, DispatchedCall];
    expect(writeResult.sealed.model_result.status).toBe('succeeded');
    expect(readResult).toMatchObject({ call_id: plain.call_id, tool_name: 'get_order', gate: 'sealed' });
    expect(readResult.sealed.protected_audit.provider_context.call_id).toBe(plain.call_id);
    expect(host.calls).toMatchObject({ get_order: 1, create_refund_draft: 1 });
    expect(await auditedGates(host)).toEqual({ [write.call_id]: 'sealed', [plain.call_id]: 'sealed' });
    expect(turn.verify(readResult.sealed, plain)).toEqual({ ok: true });
  });

  it("reads the principal's roles once: a role that later answers a lone surrogate is not what the turn runs with", async () => {
    const host = createTestHost();
    let roleReads = 0;
    const roles: string[] = [];
    Object.defineProperty(roles, 0, {
      enumerable: true,
      get: () => (++roleReads === 1 ? 'support_drafter' : 'bad\ud800'),
    });
    const seen: unknown[] = [];
    const original = host.impl.get_order_check;
    host.impl.get_order_check = (input) => {
      seen.push([...input.principal.roles]);
      return original(input);
    };
    const principal = { tenant_id: CEDAR_DRAFTER.tenant_id, subject_id: CEDAR_DRAFTER.subject_id, roles };
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], { principal }));
    expect(roleReads).toBe(1);
    expect(seen).toEqual([['support_drafter']]);
    expect(result.gate).toBe('sealed');
  });

  it.each([
    ['throws', (): number => {
      throw new Error('clock source gone');
    }],
    ['answers a fraction', (): number => START + 0.5],
    ['answers NaN', (): number => Number.NaN],
  ])('the review: a clock that %s after start-up falls back to its last good reading; the turn keeps every result', async (_name, broken) => {
    let clockBroken = false;
    const manual = new ManualClock(START);
    const host = createTestHost({
      clock: manual,
      options: { clock: { now: () => (clockBroken ? broken() : manual.now()) } },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const original = host.impl.get_order;
    host.impl.get_order = async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      clockBroken = true;
      return original(input);
    };
    const calls = [toolCall('create_refund_draft', BASELINE_REFUND), toolCall('get_order', { order_id: 'ORDER-C7' })];
    const turn = await host.dispatcher.dispatch(calls, context);
    expect(turn.results.map((result) => result.sealed.model_result.status)).toEqual(['succeeded', 'succeeded']);
    expect(host.calls).toMatchObject({ get_order: 1, create_refund_draft: 1 });
    // And the next turn, with the clock still broken, runs on the last good reading.
    const next = await host.dispatcher.dispatch([toolCall('kb_search', { query: 'refund' })], context);
    expect(only(next).sealed.model_result.status).toBe('succeeded');
    // Three calls' entries and the write's `write_started` entry.
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
  });

  it('documented: a digester that throws even while sealing the TOOL_ERROR fallback is the one failure that rejects dispatch', async () => {
    const digester = createDigester({ key: TEST_KEY });
    const broken: Digester = {
      ...digester,
      callBindingDigest: () => {
        throw new Error('HSM unavailable');
      },
    };
    const host = createTestHost({ options: { digester: broken } });
    await expect(host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context)).rejects.toThrow('HSM unavailable');
  });
});

describe('a store that refuses with a reason outside its contract', () => {
  it('notes only the contract vocabulary, never the text, and gives the key back unstarted (review: error text and a 2 MB reason went into the audit notes)', async () => {
    for (const reason of ['ECONNRESET: password=hunter2 at db.internal:5432', 'x'.repeat(2_000_000)]) {
      const host = createTestHost({
        tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
      });
      host.stores.idempotencyStore.markStarted = async () => ({ ok: false, reason, state: 'claimed' }) as never;
      const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER }));
      expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
      expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
      expect(result.audit_entry).not.toBeNull();
      const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
      expect(entry?.body['notes']).toContain('mark_started_unexpected');
      expect(JSON.stringify(entry?.body)).not.toContain('hunter2');
    }
  });
});
