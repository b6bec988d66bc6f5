// A write whose handler enforces its state change (README, "Proposal gate") consumes the
// eligibility it was judged on: the retry of that very request then meets RULE_REJECTED or
// STATE_CHANGED at its trusted checks. Spec 000: `execution.outcome` is what is known about the
// side effect, and OUTCOME_UNKNOWN is recovered by querying status first. So before such an
// eligibility refusal is answered, an earlier attempt of the exact request that may have run
// answers instead (replay, status query); access (NOT_FOUND) stays a hard gate with no lookup.
import { ManualClock, StoreInputError, type FindCompletedInput, type IdempotencyRecord, type IdempotencyStore } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { ERROR_CATALOG } from '@toolseal/errors';
import { createRefundProposalValidator, type RefundOrderFacts } from '@toolseal/proposal';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR, CEDAR_DRAFTER, START, TEST_KEY, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedCall } from './dispatch-types.js';
import type { DispatcherTool, TrustedCheckOutcome } from './dispatcher-tool.js';

const APPROVAL_TTL_MS = 60_000;
const REFUND_FIELDS = ['order_id', 'amount', 'unit', 'lines'];

/** The trusted order facts, writable: the handler (the downstream system) changes them. */
type Writable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? Writable<U>[] : T[K] extends object ? Writable<T[K]> : T[K] };

interface ConsumingHost extends TestHost {
  /** The trusted order the proposal gate reads, which a committed refund consumes. */
  order: Writable<RefundOrderFacts>;
  statusQueries: () => number;
  /** Store reads and lookups made so far (`get`, `findUnresolved`, `findCompleted`, `claim`). */
  storeCalls: string[];
  /** The trusted check's answer (write tool), `{ ok: true }` unless a test sets it. */
  checkAnswer: { current: TrustedCheckOutcome };
}

/**
 * The test host with a refund write that enforces its state transition: a committed refund lowers
 * the order's remaining amount and line quantity (and the handler refuses STATE_CHANGED when they
 * no longer cover it), so the proposal gate refuses the retry of the very same request.
 */
function consumingHost(options: { approval?: 'none'; deadlineMs?: number; optIn?: boolean; from?: ConsumingHost } = {}): ConsumingHost {
  // `from`: another host of the same deployment (after a deploy, say): its clock, stores and order.
  const clock = options.from?.clock ?? new ManualClock(START);
  const order = options.from?.order ?? (structuredClone(CEDAR.orders.find((entry) => entry.facts.order_id === 'ORDER-C7')?.facts) as Writable<RefundOrderFacts>);
  const validator = createRefundProposalValidator({
    digester: createDigester({ key: TEST_KEY }),
    clock: () => new Date(clock.now()),
    orders: {
      loadOrder: (principal, orderId) =>
        principal.tenant_id === 'cedar' && principal.roles.includes('support_drafter') && orderId === order.order_id
          ? { status: 'found', facts: structuredClone(order) as RefundOrderFacts }
          : { status: 'not_available' },
    },
  });
  const checkAnswer: ConsumingHost['checkAnswer'] = { current: { ok: true } };
  const host = createTestHost({
    clock,
    ...(options.from === undefined ? {} : { options: { stores: options.from.stores } }),
    deadlines: { create_refund_draft: options.deadlineMs ?? 1_000 },
    tools: (tools) =>
      tools.map((tool): DispatcherTool =>
        tool.name !== 'create_refund_draft'
          ? tool
          : {
              ...tool,
              check: () => checkAnswer.current,
              proposal: { validator, fields: REFUND_FIELDS },
              ...(options.approval === undefined ? {} : { approval: options.approval }),
              // The tool declares that its refusals of this kind are eligibility its writes consume.
              ...(options.optIn === false ? {} : { earlierAttemptAfterRefusal: true }),
            },
      ),
  });
  // The deployment's stores (createTestHost answers the ones it made, which the dispatcher then does not use).
  if (options.from !== undefined) host.stores = options.from.stores;
  const write = host.impl.create_refund_draft;
  host.impl.create_refund_draft = (input) => {
    const amount = input.arguments['amount'] as number;
    const line = order.lines[0];
    if (line === undefined || order.remaining_eligible_amount < amount || line.eligible_quantity < 1) return { kind: 'error', code: 'STATE_CHANGED' };
    order.remaining_eligible_amount -= amount;
    line.eligible_quantity -= 1;
    order.revision = 'order-c7-r2';
    return write(input);
  };
  let statusQueries = 0;
  const status = host.impl.create_refund_draft_status;
  host.impl.create_refund_draft_status = (input) => {
    statusQueries += 1;
    return status(input);
  };
  const storeCalls: string[] = [];
  const store = host.stores.idempotencyStore;
  for (const method of ['get', 'findUnresolved', 'findCompleted', 'claim'] as const) {
    const original = store[method] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof original !== 'function') continue;
    (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      storeCalls.push(method);
      return original.apply(store, args);
    };
  }
  return Object.assign(host, { order, statusQueries: () => statusQueries, storeCalls, checkAnswer });
}

async function approve(host: TestHost, key: string, principal = CEDAR_DRAFTER, args: JsonObject = BASELINE_REFUND): Promise<Approval> {
  const preview = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', args)], { principal }));
  const digest = preview.approval_request?.request_sha256;
  if (digest === undefined) throw new Error('no approval preview');
  return { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: host.clock.now() + APPROVAL_TTL_MS };
}

function refund(host: TestHost, approvals: readonly Approval[] = [], principal = CEDAR_DRAFTER, args: JsonObject = BASELINE_REFUND): Promise<DispatchedCall> {
  return host.dispatcher.dispatch([toolCall('create_refund_draft', args)], { principal, approvals: [...approvals] }).then(only);
}

/** The first write commits downstream (consuming the order), then never answers: OUTCOME_UNKNOWN. */
async function writeWithUnknownOutcome(host: ConsumingHost, approvals: readonly Approval[]): Promise<void> {
  const consume = host.impl.create_refund_draft;
  host.impl.create_refund_draft = (input) => {
    void consume(input);
    return new Promise<never>(() => undefined);
  };
  const first = await refund(host, approvals);
  host.impl.create_refund_draft = consume;
  expect(first.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
  expect(first.sealed.model_result.error?.recovery).toBe('query_status');
}

async function auditBody(host: TestHost, result: DispatchedCall): Promise<JsonObject | undefined> {
  return (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0]?.body;
}

function expectCode(result: DispatchedCall, code: keyof typeof ERROR_CATALOG): void {
  expect(result.sealed.model_result.error?.code).toBe(code);
  expect(result.sealed.model_result.execution.outcome).toBe(ERROR_CATALOG[code].outcome);
  expect(result.sealed.model_result.error?.recovery).toBe(ERROR_CATALOG[code].recovery);
}

/** What the proposal gate answers for the baseline refund now, with no earlier attempt to find (another subject). */
async function refusalWithoutEarlierAttempt(host: ConsumingHost): Promise<string | undefined> {
  const other = { ...CEDAR_DRAFTER, subject_id: 'support-drafter-9' };
  return (await refund(host, [], other)).sealed.model_result.error?.code;
}

describe('a write refused on eligibility its own earlier attempt consumed', () => {
  it('the review (f1): a committed refund consumed the order; the retry under the same approval replays it (local_replay), the handler ran once', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-consumed');
    const first = await refund(host, [approval]);
    expect(first.gate).toBe('sealed');
    expect(host.order.remaining_eligible_amount).toBe(0);
    expect(await refusalWithoutEarlierAttempt(host)).toBe('RULE_REJECTED');

    const retry = await refund(host, [approval]);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.status).toBe('succeeded');
    expect(retry.sealed.model_result.execution.outcome).toBe('committed');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-consumed');
    expect(retry.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-consumed');
    expect(host.calls['create_refund_draft']).toBe(1);
    // Read, never claimed just to look.
    expect(host.storeCalls.slice(-1)).toEqual(['get']);
    const body = await auditBody(host, retry);
    expect(body?.['notes']).toEqual(['earlier_attempt_after_refusal']);
    expect(body?.['approval']).toEqual({ approved_by: 'supervisor-1', expires_at: approval.expires_at, request_sha256: approval.request_sha256 });
    expect(body?.['replay_of']).toBe(first.sealed.protected_audit.downstream.operation_id);
    expect((await host.stores.idempotencyStore.get('appr-consumed'))?.state).toBe('completed');
  });

  it('the review (f1b): the write committed but answered OUTCOME_UNKNOWN; the retry the gate now refuses still queries status (receipt_reconciled)', async () => {
    const host = consumingHost({ deadlineMs: 30 });
    const approval = await approve(host, 'appr-unknown');
    await writeWithUnknownOutcome(host, [approval]);
    expect((await host.stores.idempotencyStore.get('appr-unknown'))?.state).toBe('unknown');
    expect(await refusalWithoutEarlierAttempt(host)).toBe('RULE_REJECTED');

    const retry = await refund(host, [approval]);
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.status).toBe('succeeded');
    expect(retry.sealed.model_result.execution.outcome).toBe('committed');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(retry.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-unknown');
    expect(host.statusQueries()).toBe(1);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await auditBody(host, retry))?.['notes']).toEqual(['earlier_attempt_after_refusal']);
    expect((await host.stores.idempotencyStore.get('appr-unknown'))?.state).toBe('completed');

    // Reconciled: the next retry replays it.
    const again = await refund(host, [approval]);
    expect(again.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(host.statusQueries()).toBe(1);
  });

  it('keeps OUTCOME_UNKNOWN (query_status), never not_started, while the status query finds nothing', async () => {
    const host = consumingHost({ deadlineMs: 30 });
    const approval = await approve(host, 'appr-unseen');
    await writeWithUnknownOutcome(host, [approval]);
    host.impl.create_refund_draft_status = () => ({ kind: 'not_committed' });
    const retry = await refund(host, [approval]);
    expect(retry.gate).toBe('status_query');
    expectCode(retry, 'OUTCOME_UNKNOWN');
    expect((await auditBody(host, retry))?.['notes']).toEqual(['earlier_attempt_after_refusal', 'status_not_committed']);
    expect((await host.stores.idempotencyStore.get('appr-unseen'))?.state).toBe('unknown');
  });

  it('answers from the earlier attempt under an approval that has expired since (note approval_expired, accurate)', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-old');
    const first = await refund(host, [approval]);
    host.clock.advance(APPROVAL_TTL_MS + 1);
    const retry = await refund(host, [approval]);
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect((await auditBody(host, retry))?.['notes']).toEqual(['earlier_attempt_after_refusal', 'approval_expired']);
  });

  it('finds an earlier attempt under an approval the host no longer presents (findUnresolved), and queries its status', async () => {
    const host = consumingHost({ deadlineMs: 30 });
    const approval = await approve(host, 'appr-dropped');
    await writeWithUnknownOutcome(host, [approval]);
    const retry = await refund(host, []);
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-dropped');
    expect((await auditBody(host, retry))?.['notes']).toEqual(['earlier_attempt_after_refusal', 'earlier_attempt_unresolved']);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it("a trusted check's own eligibility refusal (RULE_REJECTED) answers from the earlier attempt too", async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-check');
    const first = await refund(host, [approval]);
    host.checkAnswer.current = { ok: false, code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] };
    const retry = await refund(host, [approval]);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.decision_record).not.toBeNull();
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('a write without approval (intent key) refused on eligibility its own attempt consumed', () => {
  it('replays the committed write under its intent key', async () => {
    const host = consumingHost({ approval: 'none' });
    const first = await refund(host);
    expect(first.gate).toBe('sealed');
    const key = first.sealed.protected_audit.downstream.idempotency_key;
    expect(key).toMatch(/^intent-[0-9a-f]{64}$/);
    expect(await refusalWithoutEarlierAttempt(host)).toBe('RULE_REJECTED');

    const retry = await refund(host);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe(key);
    expect(host.calls['create_refund_draft']).toBe(1);
    const body = await auditBody(host, retry);
    expect(body?.['notes']).toEqual(['earlier_attempt_after_refusal']);
    expect(body?.['approval']).toBeUndefined();
  });

  it('queries the status of a write whose outcome is unknown under its intent key (receipt_reconciled)', async () => {
    const host = consumingHost({ approval: 'none', deadlineMs: 30 });
    await writeWithUnknownOutcome(host, []);
    const retry = await refund(host);
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(host.statusQueries()).toBe(1);
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('without earlierAttemptAfterRefusal (the default), a refusal is answered as it is', () => {
  it('a policy-style RULE_REJECTED after a committed write: RULE_REJECTED, no store lookup, no status query (review 8)', async () => {
    const host = consumingHost({ optIn: false });
    const approval = await approve(host, 'appr-policy');
    expect((await refund(host, [approval])).gate).toBe('sealed');
    // Say the host now denies by policy and answers RULE_REJECTED: the dispatcher cannot tell that
    // from consumed eligibility, so without the tool's declaration nothing is looked up.
    host.checkAnswer.current = { ok: false, code: 'RULE_REJECTED' };
    const calls = host.storeCalls.length;
    const retry = await refund(host, [approval]);
    expect(retry.gate).toBe('trusted_checks');
    expect(retry.sealed.model_result.error?.code).toBe('RULE_REJECTED');
    expect(retry.sealed.model_result.execution.outcome).toBe('not_started');
    expect(host.storeCalls.slice(calls)).toEqual([]);
    expect(host.statusQueries()).toBe(0);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('refuses the option on a read tool, or given anything but a boolean, at start-up', () => {
    for (const [name, value, message] of [
      ['get_order', true, /applies to write tools only/],
      ['create_refund_draft', 'yes', /must be a boolean/],
    ] as const) {
      expect(() =>
        createTestHost({
          tools: (tools) => tools.map((tool): DispatcherTool => (tool.name === name ? ({ ...tool, earlierAttemptAfterRefusal: value } as DispatcherTool) : tool)),
        }),
      ).toThrow(message);
    }
  });
});

describe('another request under the same approval key (host keys collide)', () => {
  it('is nobody\'s attempt of this request: the refusal is answered, not IDEMPOTENCY_CONFLICT (review 8)', async () => {
    const host = consumingHost();
    const other = { ...CEDAR_DRAFTER, subject_id: 'drafter-2' };
    const preview = await refund(host, [], other);
    const otherDigest = preview.approval_request?.request_sha256;
    if (otherDigest === undefined) throw new Error('no approval preview for the other subject');
    expect((await refund(host, [await approve(host, 'k-shared')])).gate).toBe('sealed');
    const retry = await refund(
      host,
      [{ request_sha256: otherDigest, tool_name: 'create_refund_draft', idempotency_key: 'k-shared', approved_by: 'supervisor-1', expires_at: host.clock.now() + APPROVAL_TTL_MS }],
      other,
    );
    expect(retry.gate).toBe('trusted_checks');
    expect(retry.sealed.model_result.error?.code).toBe('RULE_REJECTED');
    expect(retry.sealed.model_result.execution.outcome).toBe('not_started');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('access stays a hard gate', () => {
  it("the trusted check's NOT_FOUND answers NOT_FOUND with no store lookup, though a completed record of the request exists", async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-access');
    await refund(host, [approval]);
    host.checkAnswer.current = { ok: false, code: 'NOT_FOUND' };
    const before = host.storeCalls.length;
    const refused = await refund(host, [approval]);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'NOT_FOUND');
    expect(host.storeCalls.slice(before)).toEqual([]);
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect((await auditBody(host, refused))?.['notes']).toBeUndefined();
  });

  it("the proposal gate's access refusal (NOT_FOUND: the principal lost its role) looks nothing up either", async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-role');
    await refund(host, [approval]);
    const before = host.storeCalls.length;
    // Same tenant and subject (the same request digest), but no longer a drafter.
    const refused = await refund(host, [approval], { ...CEDAR_DRAFTER, roles: [] });
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'NOT_FOUND');
    expect(host.storeCalls.slice(before)).toEqual([]);
  });

  it("a check's eligibility refusal looks nothing up when the proposal gate's access step refuses: the check's refusal is answered", async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-check-access');
    await refund(host, [approval]);
    host.checkAnswer.current = { ok: false, code: 'STATE_CHANGED' };
    const before = host.storeCalls.length;
    const refused = await refund(host, [approval], { ...CEDAR_DRAFTER, roles: [] });
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'STATE_CHANGED');
    expect(refused.decision_record).toBeNull();
    expect(host.storeCalls.slice(before)).toEqual([]);
  });

  it('FACTS_UNAVAILABLE (no verdict reached) is answered as it is, with no lookup', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-facts');
    await refund(host, [approval]);
    host.checkAnswer.current = { ok: false, code: 'FACTS_UNAVAILABLE' };
    const before = host.storeCalls.length;
    const held = await refund(host, [approval]);
    expect(held.gate).toBe('trusted_checks');
    expectCode(held, 'FACTS_UNAVAILABLE');
    expect(host.storeCalls.slice(before)).toEqual([]);
  });
});

describe('when no earlier attempt may have run', () => {
  it('answers the refusal exactly as before: its code and recovery, not_started, under no key and no approval, nothing claimed', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-fresh');
    // Something else consumed the order: nothing ran under this request.
    host.order.remaining_eligible_amount = 0;
    const before = host.storeCalls.length;
    const refused = await refund(host, [approval]);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'RULE_REJECTED');
    expect(refused.sealed.model_result.execution.delivery).toBe('fresh');
    expect(refused.sealed.model_result.error?.reasons).toEqual([{ field: '/amount', rule: 'amount_mismatch' }]);
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect(refused.approval_request).toBeNull();
    expect(refused.decision_record?.code).toBe('RULE_REJECTED');
    const body = await auditBody(host, refused);
    expect(body?.['notes']).toBeUndefined();
    expect(body?.['approval']).toBeUndefined();
    // Looked (read), never claimed: the key holds no record, and nothing ran.
    expect(host.storeCalls.slice(before)).not.toContain('claim');
    expect(host.storeCalls.slice(before)).toContain('get');
    expect(await host.stores.idempotencyStore.get('appr-fresh')).toBeUndefined();
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('answers the refusal as before when an expired approval names the request and nothing ran under it (no approval_expired note)', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-stale');
    host.clock.advance(APPROVAL_TTL_MS + 1);
    host.order.remaining_eligible_amount = 0;
    const refused = await refund(host, [approval]);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'RULE_REJECTED');
    const body = await auditBody(host, refused);
    expect(body?.['notes']).toBeUndefined();
    expect(body?.['approval']).toBeUndefined();
  });
});

describe('a store failure during the lookup', () => {
  it('a get that fails answers the refusal, noted earlier_attempt_lookup_failed (no worse than without the lookup)', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-down');
    host.order.remaining_eligible_amount = 0;
    host.stores.idempotencyStore.get = () => Promise.reject(new Error('store down'));
    const refused = await refund(host, [approval]);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'RULE_REJECTED');
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    const body = await auditBody(host, refused);
    expect(body?.['notes']).toEqual(['earlier_attempt_lookup_failed']);
    expect(body?.['approval']).toBeUndefined();
  });

  it('a findUnresolved that fails answers the refusal, noted earlier_attempt_lookup_failed', async () => {
    const host = consumingHost({ approval: 'none' });
    host.order.remaining_eligible_amount = 0;
    host.stores.idempotencyStore.findUnresolved = () => Promise.reject(new Error('store down'));
    const refused = await refund(host);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'RULE_REJECTED');
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect((await auditBody(host, refused))?.['notes']).toEqual(['earlier_attempt_lookup_failed', 'intent_lookup_failed']);
  });
});

describe('a committed write whose approval the host no longer presents (findCompleted)', () => {
  /** Another subject of the same tenant, with the same role (the order is shared). */
  const OTHER_DRAFTER = { ...CEDAR_DRAFTER, subject_id: 'support-drafter-8' };

  it('replays it (local_replay), found by findCompleted after the unresolved lookups: read only, no approval audited', async () => {
    const host = consumingHost();
    const approval = await approve(host, 'appr-forgotten');
    const first = await refund(host, [approval]);
    expect(first.gate).toBe('sealed');
    expect(await refusalWithoutEarlierAttempt(host)).toBe('RULE_REJECTED');

    const before = host.storeCalls.length;
    const retry = await refund(host, []);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.status).toBe('succeeded');
    expect(retry.sealed.model_result.execution.outcome).toBe('committed');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-forgotten');
    expect(retry.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-forgotten');
    expect(retry.approval_request).toBeNull();
    // Every authorization gate ran again: the proposal gate judged the call (and refused it).
    expect(retry.decision_record?.code).toBe('RULE_REJECTED');
    // The unresolved lookups (request, then intent), then the completed records; nothing claimed.
    expect(host.storeCalls.slice(before)).toEqual(['findUnresolved', 'findUnresolved', 'findCompleted']);
    const body = await auditBody(host, retry);
    expect(body?.['notes']).toEqual(['earlier_attempt_after_refusal', 'earlier_attempt_completed']);
    expect(body?.['approval']).toBeUndefined();
    expect(body?.['replay_of']).toBe(first.sealed.protected_audit.downstream.operation_id);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await host.stores.idempotencyStore.get('appr-forgotten'))?.state).toBe('completed');

    // An approval the host presents names the write the call stands for: under a new key that is
    // another write ("do it again"), which is what the gate refused. Live or expired, nothing ran
    // under its key, so the refusal answers and no completed record elsewhere is looked for.
    const renewed = { ...approval, idempotency_key: 'appr-again', expires_at: host.clock.now() + APPROVAL_TTL_MS };
    for (const presented of ['live', 'expired'] as const) {
      if (presented === 'expired') host.clock.advance(APPROVAL_TTL_MS + 1);
      const asked = host.storeCalls.length;
      const refused = await refund(host, [renewed]);
      expect(refused.gate, presented).toBe('trusted_checks');
      expectCode(refused, 'RULE_REJECTED');
      expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
      expect(host.storeCalls.slice(asked), presented).toEqual(['get', 'findUnresolved', 'findUnresolved']);
      expect((await auditBody(host, refused))?.['notes']).toBeUndefined();
    }
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it("a trusted check's eligibility refusal (STATE_CHANGED) without an approval replays it too", async () => {
    const host = consumingHost();
    const first = await refund(host, [await approve(host, 'appr-check-gone')]);
    host.checkAnswer.current = { ok: false, code: 'STATE_CHANGED' };
    const retry = await refund(host, []);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-check-gone');
    expect((await auditBody(host, retry))?.['notes']).toEqual(['earlier_attempt_after_refusal', 'earlier_attempt_completed']);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('once a status query reconciled an unknown outcome, the next retry without approval replays it rather than turning into the refusal', async () => {
    const host = consumingHost({ deadlineMs: 30 });
    const approval = await approve(host, 'appr-reconciled');
    await writeWithUnknownOutcome(host, [approval]);
    const reconciled = await refund(host, []);
    expect(reconciled.gate).toBe('status_query');
    expect(reconciled.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect((await host.stores.idempotencyStore.get('appr-reconciled'))?.state).toBe('completed');

    const again = await refund(host, []);
    expect(again.gate).toBe('idempotency');
    expect(again.sealed.model_result.status).toBe('succeeded');
    expect(again.sealed.model_result.execution.outcome).toBe('committed');
    expect(again.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(again.sealed.model_result.data).toEqual(reconciled.sealed.model_result.data);
    expect(again.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-reconciled');
    expect(host.statusQueries()).toBe(1);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('of several completed attempts of the request, the one completed last replays; while eligibility was left, the call without approval got the preview', async () => {
    const host = consumingHost();
    const first = await refund(host, [await approve(host, 'appr-1st')]);
    expect(first.gate).toBe('sealed');
    host.clock.advance(1_000);
    // The order is eligible again (the first refund was reversed downstream, say).
    host.order.remaining_eligible_amount = 6_000;
    const line = host.order.lines[0];
    if (line === undefined) throw new Error('no order line');
    line.eligible_quantity = 1;
    // Not refused: a new write is possible, and whether to make it is a person's decision.
    const preview = await refund(host, []);
    expect(preview.gate).toBe('approval');
    expectCode(preview, 'APPROVAL_REQUIRED');
    const second = await refund(host, [await approve(host, 'appr-2nd')]);
    expect(second.gate).toBe('sealed');
    expect(host.order.remaining_eligible_amount).toBe(0);

    const retry = await refund(host, []);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(second.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-2nd');
    expect((await auditBody(host, retry))?.['replay_of']).toBe(second.sealed.protected_audit.downstream.operation_id);
    expect(host.calls['create_refund_draft']).toBe(2);
  });

  it("a tool switched to approval 'none' replays this request's write completed under an approval's key (its own intent key holds nothing)", async () => {
    const before = consumingHost();
    const first = await refund(before, [await approve(before, 'appr-before-switch')]);
    expect(first.gate).toBe('sealed');
    const after = consumingHost({ approval: 'none', from: before });
    const retry = await refund(after);
    expect(retry.gate).toBe('idempotency');
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-before-switch');
    const body = await auditBody(after, retry);
    expect(body?.['notes']).toEqual(['earlier_attempt_after_refusal', 'earlier_attempt_completed']);
    expect(body?.['approval']).toBeUndefined();
    expect([before.calls['create_refund_draft'], after.calls['create_refund_draft']]).toEqual([1, 0]);
    // Its intent key was read, never claimed.
    const intent = (await before.stores.idempotencyStore.get('appr-before-switch'))?.intent_sha256;
    expect(await before.stores.idempotencyStore.get(`intent-${intent}`)).toBeUndefined();
  });

  it("another principal's or another request's completed record, listed under this intent by a store whose lookup collides, is no attempt of this request: the refusal", async () => {
    const cases = [
      { name: 'another principal', principal: OTHER_DRAFTER, args: BASELINE_REFUND },
      { name: 'another request of this principal', principal: CEDAR_DRAFTER, args: { ...BASELINE_REFUND, reason: 'damaged' } },
    ];
    for (const { name, principal, args } of cases) {
      const host = consumingHost();
      const theirs = await refund(host, [await approve(host, 'appr-colliding', principal, args)], principal, args);
      expect(theirs.gate, name).toBe('sealed');
      const store = host.stores.idempotencyStore;
      const lookup = store.findCompleted;
      const theirIntent = (await store.get('appr-colliding'))?.intent_sha256;
      if (lookup === undefined || theirIntent == null) throw new Error('the memory store lists completed records by intent');
      const asked: string[] = [];
      // Their records, relabelled with this call's intent (a colliding index, a forged row).
      store.findCompleted = async (input: FindCompletedInput) => {
        asked.push(input.intent_sha256);
        const listed = await lookup.call(store, { intent_sha256: theirIntent, limit: input.limit });
        return listed.map((record): IdempotencyRecord => ({ ...record, intent_sha256: input.intent_sha256 }));
      };
      const refused = await refund(host, []);
      expect(asked, name).toHaveLength(1);
      expect(asked[0], name).not.toBe(theirIntent);
      expect(refused.gate, name).toBe('trusted_checks');
      expectCode(refused, 'RULE_REJECTED');
      expect(refused.sealed.model_result.data, name).toBeNull();
      expect(refused.sealed.protected_audit.downstream.idempotency_key, name).toBeNull();
      expect((await auditBody(host, refused))?.['notes'], name).toBeUndefined();
      expect(host.calls['create_refund_draft'], name).toBe(1);
    }
  });

  it('a completed record under this request digest whose package does not verify is STATUS_CONFLICT, as every replay: nothing of it reaches the model', async () => {
    const cases = ['relabelled from another principal', 'its own package altered'] as const;
    for (const name of cases) {
      const host = consumingHost();
      const ours = (await refund(host, [])).approval_request?.request_sha256;
      if (ours === undefined) throw new Error('no approval preview');
      const principal = name === 'its own package altered' ? CEDAR_DRAFTER : OTHER_DRAFTER;
      const committed = await refund(host, [await approve(host, 'appr-unverifiable', principal)], principal);
      expect(committed.gate, name).toBe('sealed');
      const store = host.stores.idempotencyStore;
      const lookup = store.findCompleted;
      const stored = await store.get('appr-unverifiable');
      if (lookup === undefined || stored?.result == null || stored.intent_sha256 === null) throw new Error('no completed record');
      let listed: IdempotencyRecord;
      if (name === 'its own package altered') {
        const altered = stored.result.sealed_json.replace('"amount":6000', '"amount":5999');
        expect(altered).not.toBe(stored.result.sealed_json);
        listed = { ...stored, result: { ...stored.result, sealed_json: altered } };
      } else {
        expect(stored.request_sha256).not.toBe(ours);
        listed = { ...stored, request_sha256: ours };
      }
      let asked = 0;
      store.findCompleted = async (input: FindCompletedInput) => {
        asked += 1;
        return [{ ...listed, intent_sha256: input.intent_sha256 }];
      };
      const answered = await refund(host, []);
      expect(asked, name).toBe(1);
      expect(answered.gate, name).toBe('idempotency');
      expectCode(answered, 'STATUS_CONFLICT');
      expect(answered.sealed.model_result.data, name).toBeNull();
      expect(JSON.stringify(answered.sealed.model_result), name).not.toContain('DRAFT-');
      expect((await auditBody(host, answered))?.['notes'], name).toEqual(['earlier_attempt_after_refusal', 'earlier_attempt_completed', 'stored_result_unverifiable']);
      expect(host.calls['create_refund_draft'], name).toBe(1);
    }
  });

  it("a listed record of this request outside the store's contract: a malformed key is skipped (the refusal); a result that is no stored result is settled by a claim of its key", async () => {
    for (const name of ['malformed key', 'no stored result'] as const) {
      const host = consumingHost();
      const first = await refund(host, [await approve(host, 'appr-odd')]);
      const store = host.stores.idempotencyStore;
      const stored = await store.get('appr-odd');
      if (stored === undefined) throw new Error('no record');
      const listed = name === 'malformed key' ? { ...stored, key: 'appr\u0000odd' } : { ...stored, result: { sealed_json: 7 } };
      store.findCompleted = async () => [listed as unknown as IdempotencyRecord];
      const before = host.storeCalls.length;
      const answered = await refund(host, []);
      if (name === 'malformed key') {
        expect(answered.gate, name).toBe('trusted_checks');
        expectCode(answered, 'RULE_REJECTED');
        expect(answered.sealed.protected_audit.downstream.idempotency_key, name).toBeNull();
        expect(host.storeCalls.slice(before), name).not.toContain('claim');
      } else {
        // The claim's atomic answer is the store's own record, completed: it replays.
        expect(answered.gate, name).toBe('idempotency');
        expect(answered.sealed.model_result.execution.delivery, name).toBe('local_replay');
        expect(answered.sealed.model_result.data, name).toEqual(first.sealed.model_result.data);
        expect(host.storeCalls.slice(before), name).toContain('claim');
        expect((await store.get('appr-odd'))?.state, name).toBe('completed');
      }
      expect(host.calls['create_refund_draft'], name).toBe(1);
    }
  });

  it('a store without findCompleted keeps the refusal, with no note', async () => {
    const host = consumingHost();
    await refund(host, [await approve(host, 'appr-no-lookup')]);
    expect((await refund(host, [])).sealed.model_result.execution.delivery).toBe('local_replay');
    expect(Reflect.deleteProperty(host.stores.idempotencyStore, 'findCompleted')).toBe(true);
    expect(host.stores.idempotencyStore.findCompleted).toBeUndefined();
    const refused = await refund(host, []);
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'RULE_REJECTED');
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect((await auditBody(host, refused))?.['notes']).toBeUndefined();
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('a findCompleted that fails, refuses the input, answers no list or a full list without this request keeps the refusal, noted', async () => {
    const cases: { name: string; answer: (input: FindCompletedInput) => Promise<unknown>; notes: string[] }[] = [
      { name: 'throws', answer: () => Promise.reject(new Error('connection reset')), notes: ['completed_lookup_failed'] },
      { name: 'input refused', answer: () => Promise.reject(new StoreInputError('intent_sha256', 'unknown field')), notes: ['idempotency_store_input_rejected'] },
      { name: 'not a list', answer: async () => ({ length: 0 }), notes: ['completed_lookup_failed'] },
      {
        name: 'full list',
        answer: async (input) => [
          { key: 'k1', state: 'completed', intent_sha256: input.intent_sha256, request_sha256: 'f'.repeat(64) },
          { key: 'k2', state: 'unknown', intent_sha256: input.intent_sha256, request_sha256: 'e'.repeat(64) },
          null,
          { key: 'k4', state: 'completed', intent_sha256: 'd'.repeat(64), request_sha256: 'd'.repeat(64) },
        ],
        notes: ['completed_attempts_beyond_lookup'],
      },
    ];
    for (const { name, answer, notes } of cases) {
      const host = consumingHost();
      await refund(host, [await approve(host, 'appr-lookup-down')]);
      host.stores.idempotencyStore.findCompleted = answer as NonNullable<IdempotencyStore['findCompleted']>;
      const refused = await refund(host, []);
      expect(refused.gate, name).toBe('trusted_checks');
      expectCode(refused, 'RULE_REJECTED');
      expect(refused.sealed.protected_audit.downstream.idempotency_key, name).toBeNull();
      const body = await auditBody(host, refused);
      expect(body?.['notes'], name).toEqual(notes);
      expect(body?.['approval'], name).toBeUndefined();
      expect(host.calls['create_refund_draft'], name).toBe(1);
    }
  });
});

describe('which completed attempt answers after a refusal (review)', () => {
  function restoreEligibility(host: ConsumingHost): void {
    host.order.remaining_eligible_amount = 6_000;
    const line = host.order.lines[0];
    if (line === undefined) throw new Error('no order line');
    line.eligible_quantity = 1;
  }

  it('the one that completed last, not the one created last: a key released and completed again later answers', async () => {
    const host = consumingHost();
    const consume = host.impl.create_refund_draft;
    const approvalA = await approve(host, 'appr-A');
    // A's first attempt: the handler refuses (retryable), the key is given back.
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'STATE_CHANGED' });
    expect((await refund(host, [approvalA])).sealed.model_result.error?.code).toBe('STATE_CHANGED');
    host.impl.create_refund_draft = consume;
    host.clock.advance(1_000);
    expect((await refund(host, [await approve(host, 'appr-B')])).gate).toBe('sealed');
    restoreEligibility(host);
    host.clock.advance(1_000);
    // A again, later than B: created first, completed last.
    const again = await refund(host, [approvalA]);
    expect(again.gate).toBe('sealed');
    host.clock.advance(1_000);
    const retry = await refund(host, []);
    expect(retry.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-A');
    expect(retry.sealed.model_result.data).toEqual(again.sealed.model_result.data);
  });

  it('a full list (four) answers the refusal with completed_attempts_beyond_lookup: a later attempt may be left out', async () => {
    const host = consumingHost();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      if (attempt > 1) restoreEligibility(host);
      host.clock.advance(1_000);
      expect((await refund(host, [await approve(host, `appr-${attempt}`)])).gate).toBe('sealed');
    }
    const retry = await refund(host, []);
    expectCode(retry, 'RULE_REJECTED');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    const notes = (await auditBody(host, retry))?.['notes'];
    expect(notes).toContain('completed_attempts_beyond_lookup');
    expect(notes).not.toContain('earlier_attempt_completed');
    expect(host.calls['create_refund_draft']).toBe(5);
  });

  it('a listed record that turns out to be no attempt (its key free when claimed) leaves the refusal as it is: no key, no completed note', async () => {
    const host = consumingHost();
    expect((await refund(host, [await approve(host, 'appr-real')])).gate).toBe('sealed');
    const store = host.stores.idempotencyStore;
    const stored = await store.get('appr-real');
    if (stored === undefined) throw new Error('no record');
    // A store outside its contract: a "completed" record with an unreadable result, under a key that holds nothing.
    store.findCompleted = async () => [{ ...stored, key: 'appr-ghost', result: { sealed_json: 'x' } } as unknown as IdempotencyRecord];
    const answered = await refund(host, []);
    expectCode(answered, 'RULE_REJECTED');
    expect(answered.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect((await auditBody(host, answered))?.['notes']).not.toContain('earlier_attempt_completed');
  });
});
