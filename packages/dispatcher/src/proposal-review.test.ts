// Spec 002: "A successful check ... is neither approval nor a reservation of eligibility. Before any
// later authorized effect, the responsible application must recheck current restrictions and
// enforce its state transition consistently." The dispatcher rechecks right before the effect and
// hands the handler the recheck's record (`review`); the effect itself enforces the transition
// (review finding: two refunds of one order with different reasons both passed the recheck).
import type { JsonObject } from '@toolseal/contracts';
import { rememberCanonicalText } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall } from './__fixtures__/test-host.js';
import type { HandlerInput } from './dispatcher-tool.js';

const context = { principal: CEDAR_DRAFTER };

/** A no-approval refund host with a 10 s deadline, counting its trusted check's and validator's calls. */
function countedHost(check?: () => { ok: true } | { ok: false; code: 'NOT_FOUND' }) {
  const seen = { checks: 0, validations: 0, rechecks: 0 };
  const host = createTestHost({
    deadlines: { create_refund_draft: 10_000 },
    tools: (tools) =>
      tools.map((tool) => {
        if (tool.name !== 'create_refund_draft' || tool.proposal === undefined) return tool;
        const { validator } = tool.proposal;
        const counted = Object.create(validator, {
          validate: { value: (...args: Parameters<typeof validator.validate>) => ((seen.validations += 1), validator.validate(...args)) },
          recheckCurrent: {
            value: (...args: Parameters<typeof validator.recheckCurrent>) => ((seen.rechecks += 1), validator.recheckCurrent(...args)),
          },
        }) as typeof validator;
        return {
          ...tool,
          approval: 'none' as const,
          ...(check === undefined ? {} : { check: () => ((seen.checks += 1), check()) }),
          proposal: { ...tool.proposal, validator: counted },
        };
      }),
  });
  return { host, seen };
}

function noApprovalHost() {
  return createTestHost({ tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)) });
}

describe('the handler of a proposal-gated write gets the recheck it passed (review)', () => {
  it("a write's handler sees the recheck's frozen record; a tool without a proposal gate sees null", async () => {
    const host = noApprovalHost();
    const seen: HandlerInput[] = [];
    const write = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      seen.push(input);
      return write(input);
    };
    const read = host.impl.get_order;
    host.impl.get_order = (input) => {
      seen.push(input);
      return read(input);
    };
    const refund = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(refund.sealed.model_result.status).toBe('succeeded');
    await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context);
    const [refundInput, readInput] = seen;
    expect(refundInput?.review).toMatchObject({ stage: 'recheck', decision: 'ready_for_review', code: null, rule_version: 'refund-rules-v1' });
    expect(refundInput?.review?.facts_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.isFrozen(refundInput?.review)).toBe(true);
    // The same record the audit entry keeps for the call.
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: refund.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['decision_record']).toEqual(refundInput?.review);
    expect(readInput?.review).toBeNull();
  });

  it('the handler holds a copy, never the record the audit entry keeps: remembering a text for it changes nothing in the log (review)', async () => {
    const host = noApprovalHost();
    const write = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      // The audit stores reuse remembered texts when they canonicalize an entry body.
      const forged = `{"decision":"ready_for_review","facts_sha256":"${'0'.repeat(64)}","rule_version":"FORGED"}`;
      rememberCanonicalText(input.review as object, forged, 1);
      return write(input);
    };
    const refund = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(refund.sealed.model_result.status).toBe('succeeded');
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: refund.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['decision_record']).toEqual(refund.decision_record);
    expect(entry?.body['decision_record']).toMatchObject({ rule_version: 'refund-rules-v1' });
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true });
  });

  it('the documented pattern: two refunds of one order in one turn both pass the recheck; a conditional effect lets one through, the other answers STATE_CHANGED', async () => {
    const host = noApprovalHost();
    // The downstream order: what may still be refunded, changed only by a conditional write.
    let remaining = 6000;
    let checkedBeforeEffect = 0;
    host.impl.create_refund_draft = async (input) => {
      checkedBeforeEffect += 1;
      // Both calls are past their recheck before either effect runs.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const amount = input.arguments['amount'] as number;
      // One atomic step in a real store (UPDATE ... WHERE remaining >= amount).
      if (remaining < amount) return { kind: 'error', code: 'STATE_CHANGED' };
      remaining -= amount;
      const data: JsonObject = { draft_ref: `DRAFT-${checkedBeforeEffect}`, order_ref: 'ORDER-C7', amount, unit: 'CREDIT_A', reason: input.arguments['reason'] as string };
      return { kind: 'data', data, resource_revision: 'draft-c7-r1', observed_at: new Date(host.clock.now()).toISOString(), receipt: `receipt-${checkedBeforeEffect}` };
    };
    const turn = await host.dispatcher.dispatch(
      [toolCall('create_refund_draft', { ...BASELINE_REFUND, reason: 'damaged' }, { callId: 'call_a' }), toolCall('create_refund_draft', { ...BASELINE_REFUND, reason: 'other' }, { callId: 'call_b' })],
      context,
    );
    expect(checkedBeforeEffect).toBe(2);
    const outcomes = turn.results.map((result) => result.sealed.model_result.error?.code ?? result.sealed.model_result.status).sort();
    expect(outcomes).toEqual(['STATE_CHANGED', 'succeeded']);
    expect(remaining).toBe(0);
  });

  it('an actor of the same tenant without the drafter role may not prepare proposals: the same neutral NOT_FOUND bytes as another tenant\'s order', async () => {
    const host = noApprovalHost();
    const customer = { tenant_id: 'cedar', subject_id: 'customer-1', roles: ['customer'] };
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: customer }));
    const otherTenant = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', { ...BASELINE_REFUND, order_id: 'ORDER-M9' })], context));
    expect(refused.gate).toBe('trusted_checks');
    expect(refused.sealed.model_result.error?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(refused.sealed.model_result.error)).toBe(JSON.stringify(otherTenant.sealed.model_result.error));
    expect(host.drafts.size).toBe(0);
  });
});

describe('a write with both a trusted check and a proposal gate (review: nothing covered the pair)', () => {

  it('a passing check does not skip the proposal: a rejected proposal answers RULE_REJECTED and runs nothing', async () => {
    const { host, seen } = countedHost(() => ({ ok: true }));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', { ...BASELINE_REFUND, amount: 4500 })], context));
    expect(result.sealed.model_result.error?.code).toBe('RULE_REJECTED');
    expect(seen).toEqual({ checks: 1, validations: 1, rechecks: 0 });
    expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
  });

  it('a refusing check answers with its own code and the validator is never asked', async () => {
    const { host, seen } = countedHost(() => ({ ok: false, code: 'NOT_FOUND' }));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.error?.code).toBe('NOT_FOUND');
    expect(seen).toEqual({ checks: 1, validations: 0, rechecks: 0 });
    expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
  });

  it('both passing, the handler runs once', async () => {
    const { host, seen } = countedHost(() => ({ ok: true }));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(seen).toEqual({ checks: 1, validations: 1, rechecks: 1 });
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('no validator is asked once the call is out of time (review)', () => {

  it('a trusted check that takes the time: TIMEOUT_BEFORE_EXECUTE, and the proposal gate never asks the validator', async () => {
    let advance = (): void => {};
    const { host, seen } = countedHost(() => (advance(), { ok: true }));
    advance = () => host.clock.advance(20_000);
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('deadline');
    expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(seen).toEqual({ checks: 1, validations: 0, rechecks: 0 });
    expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
  });

  it('a claim that takes the time: TIMEOUT_BEFORE_EXECUTE before the recheck, which is never asked, and the key is given back', async () => {
    const { host, seen } = countedHost();
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    // A busy database: 20 s pass while the claim answers, twice the call's deadline.
    store.claim = async (input) => {
      host.clock.advance(20_000);
      return claim(input);
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('deadline');
    expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(seen).toEqual({ checks: 0, validations: 1, rechecks: 0 });
    expect(host.calls['create_refund_draft'] ?? 0).toBe(0);
    const key = result.sealed.protected_audit.downstream.idempotency_key;
    expect(key).not.toBeNull();
    expect((await store.get(key ?? ''))?.state ?? 'absent').not.toMatch(/^(claimed|started|unknown)$/);
  });
});
