// The idempotency key of a write without approval (`approval: 'none'`). Spec 000: the key is
// "retry/execution identity, not business-intent content", and the request digest binds the
// contract revisions. The key is therefore derived from the intent only (tenant, subject, tool,
// arguments), so a deploy that bumps a revision cannot give the same intent a second key and a
// second downstream write: the changed request digest meets the stored record and conflicts.
import { createMemoryStores, ManualClock } from '@toolseal/audit';
import type { JsonObject, PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { createToolRegistry, type ToolSpec } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, CEDAR_OTHER, loadToolSpecs, only, START, TEST_KEY, toolCall } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';
import type { Dispatcher } from './dispatch-types.js';

const INTENT_DOMAIN = 'toolseal.dispatcher.intent_key.v1';

/** Two deployments of one host sharing its stores: the second only changes contract revisions. */
function deployments() {
  const clock = new ManualClock(START);
  const digester = createDigester({ key: TEST_KEY });
  const stores = createMemoryStores({ clock, digester });
  const writes: string[] = [];
  /** While true, the handler refuses with FACTS_UNAVAILABLE, a declared "nothing was executed". */
  const hold = { on: false };
  /** While true, the trusted check refuses (the order's eligibility, used up by the first write). */
  const eligibility = { used: false };
  const specs = loadToolSpecs();
  const deploy = (revisions: Partial<ToolSpec['contract']>): Dispatcher => {
    const refund: ToolSpec = { ...specs.createRefundDraft, contract: { ...specs.createRefundDraft.contract, ...revisions } };
    return createDispatcher({
      registry: createToolRegistry([specs.getOrder, specs.kbSearch, refund]),
      digester,
      clock,
      stores,
      tools: [
        { name: 'get_order', handler: () => ({ kind: 'error', code: 'NOT_FOUND' }) },
        { name: 'kb_search', handler: () => ({ kind: 'error', code: 'NOT_FOUND' }) },
        {
          name: 'create_refund_draft',
          approval: 'none',
          earlierAttemptAfterRefusal: true,
          check: () => (eligibility.used ? { ok: false, code: 'STATE_CHANGED' } : { ok: true }),
          handler: ({ arguments: args, idempotency_key }) => {
            if (hold.on) return { kind: 'error', code: 'FACTS_UNAVAILABLE' };
            writes.push(idempotency_key ?? '');
            return {
              kind: 'data',
              data: { draft_ref: 'DRAFT-1', order_ref: args['order_id'] ?? null, amount: args['amount'] ?? null, unit: args['unit'] ?? null },
              resource_revision: 'draft-c7-r1',
              observed_at: new Date(clock.now()).toISOString(),
              receipt: `receipt-${writes.length}`,
            };
          },
        },
      ],
    });
  };
  const intentKey = (principal: PrincipalContext, args: JsonObject): string =>
    `intent-${digester.digestTagged(INTENT_DOMAIN, {
      tenant_id: principal.tenant_id,
      subject_id: principal.subject_id,
      tool_name: 'create_refund_draft',
      arguments: args,
    })}`;
  return { deploy, writes, stores, intentKey, hold, eligibility };
}

const refund = (dispatcher: Dispatcher, args: JsonObject = BASELINE_REFUND, principal: PrincipalContext = CEDAR_DRAFTER) =>
  dispatcher.dispatch([toolCall('create_refund_draft', args)], { principal }).then(only);

describe('the idempotency key of a write without approval', () => {
  it('is intent-<digestTagged(toolseal.dispatcher.intent_key.v1, tenant, subject, tool, arguments)>, keyed by the host digester', async () => {
    const { deploy, writes, intentKey } = deployments();
    const result = await refund(deploy({}));
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe(intentKey(CEDAR_DRAFTER, BASELINE_REFUND));
    expect(writes).toEqual([intentKey(CEDAR_DRAFTER, BASELINE_REFUND)]);
    // Not the request digest (which binds the revisions), and not guessable without the key.
    expect(writes[0]).not.toContain(result.sealed.protected_audit.binding.request_sha256);
    const unkeyed = createDigester().digestTagged(INTENT_DOMAIN, {
      tenant_id: CEDAR_DRAFTER.tenant_id,
      subject_id: CEDAR_DRAFTER.subject_id,
      tool_name: 'create_refund_draft',
      arguments: BASELINE_REFUND,
    });
    expect(writes[0]).not.toBe(`intent-${unkeyed}`);
  });

  it('the review: a deploy that bumps the output revision does not run the same intent again (STATUS_CONFLICT: it ran, outcome unknown to this request)', async () => {
    const { deploy, writes, intentKey, stores } = deployments();
    const first = deploy({});
    expect((await refund(first)).sealed.model_result.execution.delivery).toBe('fresh');
    expect((await refund(first)).sealed.model_result.execution.delivery).toBe('local_replay');
    for (const revisions of [{ output_revision: 'refund-draft-output-v9' }, { input_revision: 'in-v9' }, { effect_revision: 'eff-v9' }]) {
      const bumped = await refund(deploy(revisions));
      expect(bumped.gate, JSON.stringify(revisions)).toBe('idempotency');
      expect(bumped.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
      expect(bumped.sealed.model_result.execution.outcome).toBe('unknown');
      const entry = (await stores.auditLog.query({ kind: 'sealed_call', call_id: bumped.call_id }, { limit: 1 })).entries[0];
      expect(entry?.body['notes']).toEqual(['same_intent_other_request']);
      expect(bumped.sealed.protected_audit.downstream.idempotency_key).toBe(intentKey(CEDAR_DRAFTER, BASELINE_REFUND));
    }
    expect(writes).toHaveLength(1);
  });

  it('the fresh review: after the trusted check refuses, the same intent written under other revisions is STATUS_CONFLICT, not the refusal', async () => {
    const { deploy, writes, eligibility, stores } = deployments();
    expect((await refund(deploy({}))).sealed.model_result.execution.delivery).toBe('fresh');
    // The write used the order's eligibility up: the check refuses every later call.
    eligibility.used = true;
    const bumped = await refund(deploy({ output_revision: 'refund-draft-output-v9' }));
    // Not STATE_CHANGED (failed, not started): the write this call stands for did happen.
    expect(bumped.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(bumped.sealed.model_result.execution.outcome).toBe('unknown');
    const entry = (await stores.auditLog.query({ kind: 'sealed_call', call_id: bumped.call_id }, { limit: 2 })).entries;
    expect(entry.at(-1)?.body['notes']).toContain('same_intent_other_request');
    expect(writes).toHaveLength(1);
  });

  it('the final review: an intent under which nothing ran (released) runs after the deploy, once', async () => {
    const { deploy, writes, stores, intentKey, hold } = deployments();
    hold.on = true;
    const held = await refund(deploy({}));
    expect(held.sealed.model_result.error?.code).toBe('FACTS_UNAVAILABLE');
    expect((await stores.idempotencyStore.get(intentKey(CEDAR_DRAFTER, BASELINE_REFUND)))?.state).toBe('released');
    hold.on = false;
    const bumped = deploy({ output_revision: 'refund-draft-output-v9' });
    expect((await refund(bumped)).sealed.model_result.execution.delivery).toBe('fresh');
    expect((await refund(bumped)).sealed.model_result.execution.delivery).toBe('local_replay');
    expect(writes).toEqual([intentKey(CEDAR_DRAFTER, BASELINE_REFUND)]);
  });

  it('separates intents: other arguments, another subject or tenant get their own key and run', async () => {
    const { deploy, writes, intentKey } = deployments();
    const dispatcher = deploy({});
    const reason = { ...BASELINE_REFUND, reason: 'damaged' };
    const otherTenant: PrincipalContext = { ...CEDAR_DRAFTER, tenant_id: 'maple' };
    await refund(dispatcher);
    await refund(dispatcher, reason);
    await refund(dispatcher, BASELINE_REFUND, CEDAR_OTHER);
    await refund(dispatcher, BASELINE_REFUND, otherTenant);
    expect(writes).toEqual([
      intentKey(CEDAR_DRAFTER, BASELINE_REFUND),
      intentKey(CEDAR_DRAFTER, reason),
      intentKey(CEDAR_OTHER, BASELINE_REFUND),
      intentKey(otherTenant, BASELINE_REFUND),
    ]);
    expect(new Set(writes).size).toBe(4);
  });
});
