// The demo's create_refund_draft enforces its own state transition (review 7, F1: the handler never
// lowered the order's remaining amount, so three approved calls drafted one 6000 line three times,
// 18000 in all). Spec 002: "Before any later authorized effect, the responsible application must
// recheck current restrictions and enforce its state transition consistently."
import { createMemoryStores, systemClock } from '@toolseal/audit';
import type { JsonObject, ToolCall } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { createDispatcher, type Approval, type DispatchedCall, type DispatcherTool, type HandlerInput } from '@toolseal/dispatcher';
import { describe, expect, it } from 'vitest';
import { CedarWorld } from './cedar-world.js';
import { createDemoTools } from './demo-tools.js';

const digester = createDigester({ key: new Uint8Array(32).fill(7) });
const BASELINE = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };

function host() {
  const world = new CedarWorld();
  const { registry, tools } = createDemoTools(world, digester, () => new Date());
  const dispatcher = createDispatcher({ registry, tools, stores: createMemoryStores({ clock: systemClock, digester }), digester });
  let sequence = 0;
  const call = (args: JsonObject): ToolCall => {
    sequence += 1;
    return {
      provider: 'openai',
      api_family: 'responses',
      adapter_revision: 'openai-responses-v1',
      response_id: `resp_${sequence}`,
      call_id: `call_${sequence}`,
      tool_name: 'create_refund_draft',
      arguments: { format: 'json_text', text: JSON.stringify(args) },
    };
  };
  /** Dispatches `proposals` as one turn, with `approvals`. */
  const turn = async (proposals: JsonObject[], approvals: Approval[] = []): Promise<DispatchedCall[]> =>
    (await dispatcher.dispatch(proposals.map(call), { principal: world.drafter, approvals })).results;
  /** A person approving the exact request `result` previewed, under `key`. */
  const approve = (result: DispatchedCall | undefined, key: string): Approval => {
    const preview = result?.approval_request;
    if (preview === undefined || preview === null) throw new Error('no preview');
    return { request_sha256: preview.request_sha256, tool_name: preview.tool_name, idempotency_key: key, approved_by: 'cedar-supervisor-1', expires_at: Date.now() + 600_000 };
  };
  const handler = tools.find((tool: DispatcherTool) => tool.name === 'create_refund_draft')?.handler;
  if (handler === undefined) throw new Error('no create_refund_draft handler');
  /** Runs the handler directly, as the dispatcher would after a passing recheck. */
  const draft = async (key: string, args: JsonObject = BASELINE) => {
    const input: HandlerInput = {
      tool_name: 'create_refund_draft',
      arguments: args,
      principal: world.drafter,
      signal: new AbortController().signal,
      deadline: Date.now() + 2_000,
      operation_id: `op-${key}`,
      idempotency_key: key,
      review: null,
    };
    return handler(input);
  };
  const remaining = () => world.orderFor(world.drafter, 'ORDER-C7');
  const drafted = () => [...world.drafts.values()].reduce((sum, data) => sum + (typeof data['amount'] === 'number' ? data['amount'] : 0), 0);
  return { world, turn, approve, draft, remaining, drafted };
}

describe('create_refund_draft enforces its state transition', () => {
  it('the review: approvals under three keys draft the one 6000 line once; the later two are refused, nothing drafted', async () => {
    const { world, turn, approve, remaining, drafted } = host();
    // The person sees both previews while the line is still eligible.
    const [preview, damagedPreview] = await turn([BASELINE, { ...BASELINE, reason: 'damaged' }]);
    const [first] = await turn([BASELINE], [approve(preview, 'refund-key-1')]);
    expect(first?.gate).toBe('sealed');
    expect(first?.sealed.model_result.status).toBe('succeeded');
    // The draft consumed the line: the facts the proposal gate reads next are the ones it left.
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 0, revision: 'order-c7-r2' });

    const [second] = await turn([BASELINE], [approve(preview, 'refund-key-2')]);
    const [third] = await turn([{ ...BASELINE, reason: 'damaged' }], [approve(damagedPreview, 'refund-key-3')]);
    for (const refused of [second, third]) {
      expect(refused?.gate).toBe('trusted_checks');
      expect(refused?.sealed.model_result.error).toMatchObject({ code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] });
    }
    expect(world.executions['create_refund_draft']).toBe(1);
    expect(world.drafts.size).toBe(1);
    expect(drafted()).toBe(6000);
  });

  it('answers STATE_CHANGED, writing nothing, for a draft the remaining amount no longer covers (the recheck reserves nothing)', async () => {
    const { world, draft, remaining, drafted } = host();
    const first = await draft('key-a');
    expect(first).toMatchObject({ kind: 'data', data: { draft_ref: 'DRAFT-0001', amount: 6000 }, resource_revision: 'draft-c7-r1' });
    // Another draft of the order that passed its recheck before the first one wrote.
    expect(await draft('key-b', { ...BASELINE, reason: 'damaged' })).toEqual({ kind: 'error', code: 'STATE_CHANGED' });
    expect(world.drafts.has('key-b')).toBe(false);
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 0, revision: 'order-c7-r2' });
    // The first key still answers its draft (the refunds service deduplicates by key), consuming nothing more.
    expect(await draft('key-a')).toMatchObject({ kind: 'data', data: { draft_ref: 'DRAFT-0001' } });
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 0, revision: 'order-c7-r2' });
    expect(drafted()).toBe(6000);
  });

  it('answers STATE_CHANGED for an order whose eligibility was revoked after the recheck', async () => {
    const { world, draft, remaining } = host();
    world.facts = { state: 'revoked', lookup: 'up' };
    expect(await draft('key-a')).toEqual({ kind: 'error', code: 'STATE_CHANGED' });
    expect(world.drafts.size).toBe(0);
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 6000, revision: 'order-c7-r1' });
  });

  it('lets two approved drafts of other intents in one turn write once: the other is STATE_CHANGED', async () => {
    const { world, turn, approve, drafted } = host();
    const proposals = [
      { ...BASELINE, reason: 'damaged' },
      { ...BASELINE, reason: 'not_delivered' },
    ];
    const previews = await turn(proposals);
    const results = await turn(proposals, [approve(previews[0], 'refund-damaged'), approve(previews[1], 'refund-not-delivered')]);
    const outcomes = results.map((result) => result.sealed.model_result.error?.code ?? result.sealed.model_result.status).sort();
    // Which one wins is the dispatcher's interleaving. On the memory store both pass their recheck
    // before either writes, and the refunds service's conditional write refuses the second (gate
    // `handler`); a recheck that runs after the first write refuses it there instead.
    expect(outcomes).toEqual(['STATE_CHANGED', 'succeeded']);
    const refused = results.find((result) => result.sealed.model_result.status === 'failed');
    expect(['handler', 'recheck']).toContain(refused?.gate);
    expect(world.drafts.size).toBe(1);
    expect(drafted()).toBe(6000);
  });
});

describe('CedarWorld.restoreOrders', () => {
  it('sets a consumed order back to the fixture amount under a new revision, and leaves untouched orders alone', async () => {
    const { world, draft, remaining } = host();
    expect(world.restoreOrders()).toEqual([]);
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 6000, revision: 'order-c7-r1' });
    await draft('key-a');
    expect(world.restoreOrders()).toEqual(['ORDER-C7']);
    // Never the revision of a state before the draft: a decision made then does not pass again.
    expect(remaining()).toMatchObject({ remaining_eligible_amount: 6000, revision: 'order-c7-r3' });
    expect(world.drafts.has('key-a')).toBe(true);
  });
});
